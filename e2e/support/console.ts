import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test as base, type Page } from '@playwright/test';
import { e2eState } from './state';

/** Specs get `baseURL` from the running service, so paths like '/console' just work. */
export const test = base.extend({
  baseURL: async ({}, provide) => {
    await provide(e2eState().baseUrl);
  },
});
export { expect };

/** Signs in through the form, as a person pastes a token. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/console');
  await page.getByLabel('API token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Articles', level: 1 })).toBeVisible();
}

const SCREENSHOT_DIR = path.resolve('test-results', 'screenshots');

/** A full-page screenshot kept as a test artifact (test-results/ is git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Opens a ConfirmAction's dialog and confirms it. */
export async function confirm(
  page: Page,
  buttonName: string,
  scope: Page | ReturnType<Page['locator']> = page,
): Promise<void> {
  await scope.getByRole('button', { name: buttonName, exact: true }).first().click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: buttonName, exact: true }).click();
}

/**
 * Opens an article's editor and waits until React owns it (Save is enabled only then). Text
 * filled in before hydration races it: Playwright's select-all and insert can straddle the
 * moment React takes the field over, leaving the typed text beside the stored one.
 */
export async function openEditor(page: Page, id: string): Promise<void> {
  await page.goto(`/console/articles/${id}`);
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
}

/** Reloads an open editor and waits until React owns it again, as `openEditor` does. */
export async function reloadEditor(page: Page): Promise<void> {
  await page.reload();
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
}

/** Clicks Save in the article editor and waits for this save (not an earlier one) to finish. */
export async function saveEditor(page: Page): Promise<void> {
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to the console' })).toBeVisible();
}
