import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test as base, type Page } from '@playwright/test';
import { e2eState } from './state';

/** The editor's autosave switch in localStorage (app/console/articles/[id]/use-autosave.ts). */
const AUTOSAVE_PREFERENCE = 'console.autosave';

/**
 * Specs get `baseURL` from the running service, so paths like '/console' just work.
 *
 * The editor's autosave starts off in each spec's browser (the writer's own switch in the action
 * bar, kept in localStorage), so specs about saving by hand decide every save themselves;
 * console-autosave.spec.ts turns it on, as a writer does, and tests it.
 */
export const test = base.extend({
  baseURL: async ({}, provide) => {
    await provide(e2eState().baseUrl);
  },
  page: async ({ page }, provide) => {
    await page.addInitScript((key) => {
      try {
        if (window.localStorage.getItem(key) === null) window.localStorage.setItem(key, 'off');
      } catch {
        // a page without storage (about:blank) has no editor either
      }
    }, AUTOSAVE_PREFERENCE);
    await provide(page);
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
  await editorReady(page);
}

/** Reloads an open editor and waits until React owns it again, as `openEditor` does. */
export async function reloadEditor(page: Page): Promise<void> {
  await page.reload();
  await editorReady(page);
}

/**
 * Opens "New article" from the console's navigation and waits until the Markdown editor has taken
 * the text box's place. A locator resolved before that holds the box the editor hides, and an
 * action on it waits for a box that never shows again (a CI run hung 2 minutes so).
 */
export async function openNewArticle(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'New article' }).click();
  await expect(page.getByRole('heading', { name: 'New article', level: 1 })).toBeVisible();
  await expect(page.locator('.code-editor .cm-content')).toBeVisible();
}

/** React owns the page (Save is enabled) and the Markdown editor has taken the text box's place. */
export async function editorReady(page: Page): Promise<void> {
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
  await expect(page.locator('.code-editor .cm-content')).toBeVisible();
}

/**
 * The Markdown text as the form holds it. The CodeMirror editor shows only the lines in view, so
 * the text is read from the form's text box, which the editor keeps equal to its own.
 */
export function markdownText(page: Page) {
  return page.locator('textarea[name="markdown"]');
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
