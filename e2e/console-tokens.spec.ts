import { api } from './support/api';
import { confirm, expect, screenshot, signIn, test } from './support/console';
import { e2eState, tokenOf } from './support/state';

/**
 * Account settings: create (secret shown once), reissue, revoke, the five-token cap, and a
 * revoked or reissued token's console session ending at once.
 */
test('create, reissue and revoke tokens; a revoked token ends its console session', async ({ page, browser }) => {
  const keeperToken = tokenOf('keeper');
  await signIn(page, keeperToken);
  await page.getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  await expect(page.getByText('1 of 5 active')).toBeVisible();
  await expect(page.getByText('this session')).toBeVisible();
  // Only the prefix and last four characters of the session's token are listed.
  await expect(page.locator('table.tokens')).toContainText(`dp_live_…${keeperToken.slice(-4)}`);
  await expect(page.getByRole('heading', { name: 'Limits and usage' })).toBeVisible();
  await expect(page.getByText('Media stored today')).toBeVisible();

  // Create: the secret is shown once, with a copy button, and works against the API.
  await page.getByLabel('New token name').fill('ci-sync');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secretBox = page.getByLabel('New secret (shown once)');
  await expect(secretBox).toHaveValue(/^dp_live_[0-9A-Za-z]{43}$/);
  const ciSecret = await secretBox.inputValue();
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  await screenshot(page, 'account-token-created');
  expect((await api(ciSecret, 'GET', '/me')).status).toBe(200);
  await page.reload();
  await expect(page.getByLabel('New secret (shown once)')).toHaveCount(0);
  await expect(page.locator('table.tokens')).toContainText(`dp_live_…${ciSecret.slice(-4)}`);
  await expect(page.getByText('2 of 5 active')).toBeVisible();

  // Sign a second browser in with the new token.
  const other = await browser.newContext({ baseURL: e2eState().baseUrl });
  const otherPage = await other.newPage();
  await signIn(otherPage, ciSecret);

  // Reissue: same row, new secret; the old secret is dead and so is the other browser's session.
  const ciRow = page.locator('tr', { hasText: 'ci-sync' });
  await confirm(page, 'Reissue', ciRow);
  await expect(ciRow.getByLabel('New secret (shown once)')).toHaveValue(/^dp_live_/);
  const reissued = await ciRow.getByLabel('New secret (shown once)').inputValue();
  expect(reissued).not.toBe(ciSecret);
  expect((await api(ciSecret, 'GET', '/me')).status).toBe(401);
  expect((await api(reissued, 'GET', '/me')).status).toBe(200);
  await otherPage.reload();
  await expect(otherPage.getByLabel('API token', { exact: true })).toBeVisible();
  await expect(otherPage.getByText('Your console session has ended')).toBeVisible();
  await screenshot(otherPage, 'session-ended');

  // Revoke: the other browser signs in with the reissued secret, then loses it on revoke.
  await signIn(otherPage, reissued);
  await page.reload();
  await confirm(page, 'Revoke', page.locator('tr', { hasText: 'ci-sync' }));
  await expect(page.locator('tr', { hasText: 'ci-sync' })).toContainText('Revoked');
  expect((await api(reissued, 'GET', '/me')).status).toBe(401);
  await otherPage.goto('/console/account');
  await expect(otherPage.getByLabel('API token', { exact: true })).toBeVisible();
  // The session's own console keeps working: it was opened with another token.
  await page.reload();
  await expect(page.getByText('1 of 5 active')).toBeVisible();
  await screenshot(page, 'account');
  await other.close();

  // At most five active: four more are allowed, then the form says why not.
  for (let i = 2; i <= 5; i++) {
    await page.getByLabel('New token name').fill(`extra-${i}`);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByLabel('New secret (shown once)')).toHaveValue(/^dp_live_/);
    await expect(page.getByText(`${i} of 5 active`)).toBeVisible();
  }
  await expect(page.getByRole('button', { name: 'Create token' })).toBeDisabled();
  await expect(page.getByText('the most an account can have')).toBeVisible();

  // Revoking the token of this very session signs this browser out.
  await confirm(page, 'Revoke', page.locator('tr', { hasText: 'this session' }));
  await expect(page.getByLabel('API token', { exact: true })).toBeVisible();
  expect((await api(keeperToken, 'GET', '/me')).status).toBe(401);
});

test('signing out ends the session on the server', async ({ page }) => {
  await signIn(page, tokenOf('author'));
  const cookie = (await page.context().cookies()).find((c) => c.name === 'dp_console');
  expect(cookie).toBeDefined();
  expect(cookie!.httpOnly).toBe(true);
  expect(cookie!.sameSite).toBe('Strict');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API token', { exact: true })).toBeVisible();
  // Replaying the old cookie value opens nothing.
  await page.context().addCookies([{ ...cookie! }]);
  await page.goto('/console/account');
  await expect(page.getByLabel('API token', { exact: true })).toBeVisible();
});

test('a wrong token is refused in words', async ({ page }) => {
  await page.goto('/console');
  await page.getByLabel('API token', { exact: true }).fill('dp_live_' + 'x'.repeat(43));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('That token is not valid')).toBeVisible();
  await page.getByLabel('API token', { exact: true }).fill('eyJhbGciOiJIUzI1NiJ9.session.jwt');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Only API tokens that start with dp_live_ can sign in.')).toBeVisible();
  await screenshot(page, 'sign-in-error');
});
