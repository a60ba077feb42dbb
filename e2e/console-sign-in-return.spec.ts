import { api } from './support/api';
import { confirm, expect, signIn, signOut, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * Signing in returns to the console page that was asked for, and only to a console page of
 * this origin; a token revoked after it was created takes its secret off the screen.
 */

test('after sign-in the browser returns to the page it asked for, never to another site', async ({ page }) => {
  const token = tokenOf('pager');
  await page.goto('/console/account?tab=tokens');
  await expect(page).toHaveURL(/\/console\?next=%2Fconsole%2Faccount%3Ftab%3Dtokens$/);
  await page.getByLabel('API token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  await expect(page).toHaveURL(/\/console\/account\?tab=tokens$/);
  await signOut(page);

  for (const next of ['https://evil.example/console', '//evil.example/console', '/console/../api/health']) {
    await page.goto(`/console?next=${encodeURIComponent(next)}`);
    await page.getByLabel('API token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Articles', level: 1 })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/console');
    await signOut(page);
  }

  // A forged form field gets the same answer as a forged address.
  await page.goto('/console');
  await page.evaluate(() => {
    const form = document.querySelector('form.sign-in')!;
    const field = document.createElement('input');
    field.type = 'hidden';
    field.name = 'next';
    field.value = 'https://evil.example/';
    form.append(field);
  });
  await page.getByLabel('API token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Articles', level: 1 })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(page.url()).origin);
  expect(new URL(page.url()).pathname).toBe('/console');
});

test('a token revoked after it was created takes its secret off the screen', async ({ page }) => {
  const token = tokenOf('pager');
  await signIn(page, token);
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByLabel('New token name').fill('short-lived');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secretBox = page.getByLabel('New secret (shown once)');
  await expect(secretBox).toHaveValue(/^dp_live_/);
  const secret = await secretBox.inputValue();

  const row = page.locator('table.tokens tr', { hasText: 'short-lived' });
  await confirm(page, 'Revoke', row);
  await expect(row).toContainText('Revoked');
  await expect(page.getByLabel('New secret (shown once)')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Copy' })).toHaveCount(0);
  await expect(page.locator('#console-main')).not.toContainText(secret);
  await expect(page.getByText('The token created here has been revoked')).toBeVisible();
  expect((await api(secret, 'GET', '/me')).status).toBe(401);
});
