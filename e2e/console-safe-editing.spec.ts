import { api, createPost } from './support/api';
import {
  expect,
  saveEditor,
  screenshot,
  signIn,
  test,
  openEditor,
  markdownText,
  reloadEditor,
} from './support/console';
import { tokenOf } from './support/state';

/**
 * Safe editing: a save carries the version it started from (If-Match), so a change made
 * elsewhere is never overwritten and the editor says so, offering to reload or compare; unsaved
 * text survives a reload in this tab's session storage (article fields only, never a token);
 * leaving with unsaved text asks first.
 */

test('a save refused because the article changed elsewhere offers a comparison, then saves on request', async ({
  page,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Shared notes', markdown: 'Original text.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Original text.');

  // Saves send the version the editor loaded, as If-Match.
  await expect(page.locator('form[aria-label="Edit article"] input[name="version"]')).toHaveValue(/^"/);

  expect((await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Rewritten through the API.' })).status).toBe(200);
  await page.getByLabel('Markdown').fill('Typed in the console.');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const conflict = page.getByRole('alert').filter({ hasText: 'This article was changed elsewhere' });
  await expect(conflict).toBeVisible();
  await expect(conflict.getByRole('button', { name: 'Reload the current version' })).toBeVisible();
  expect((await api<{ html: string }>(token, 'GET', `/posts/${post.id}`)).body.html).toContain('Rewritten through');

  await conflict.getByRole('button', { name: 'Compare with the current version' }).click();
  await expect(conflict.getByLabel('Current version', { exact: true })).toHaveValue('Rewritten through the API.');
  await expect(conflict.getByLabel('Your unsaved text')).toHaveValue('Typed in the console.');
  await screenshot(page, 'safe-editing-compare');

  await conflict.getByRole('button', { name: /Keep my text/ }).click();
  await saveEditor(page);
  const stored = await api<{ html: string }>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('Typed in the console.');
});

test('unsaved text survives a reload in session storage, holding article fields only', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Draft that survives', markdown: 'Saved text.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Saved text.');
  await markdown.fill('Unsaved text typed before the reload.');
  await page.getByLabel('Subtitle').fill('An unsaved subtitle');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  const stored = await page.evaluate(() => ({
    session: Object.entries(sessionStorage),
    local: Object.entries(localStorage),
    cookies: document.cookie,
  }));
  expect(stored.session).toHaveLength(1);
  const [key, value] = stored.session[0]!;
  expect(key).toBe(`console-unsaved-article:${post.id}`);
  const draft = JSON.parse(value) as { version: string; fields: Record<string, string> };
  expect(Object.keys(draft).sort()).toEqual(['fields', 'version']);
  expect(Object.keys(draft.fields).sort()).toEqual(['markdown', 'slug', 'subtitle', 'tags', 'title']);
  for (const text of [value, JSON.stringify(stored.local), stored.cookies]) expect(text).not.toContain(token);

  page.once('dialog', (dialog) => void dialog.accept().catch(() => {})); // the leave-page prompt, if the browser shows it
  await page.reload();
  await expect(markdownText(page)).toHaveValue('Unsaved text typed before the reload.');
  await expect(page.getByLabel('Subtitle')).toHaveValue('An unsaved subtitle');
  await expect(page.getByText('Your unsaved changes from before the reload were restored')).toBeVisible();
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  // Saving clears the stored copy; a reload then shows the saved article without a notice.
  // (What stays is where the saved preview opens: words of the article's cursor line, no draft.)
  await saveEditor(page);
  expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([`console-preview-place:${post.id}`]);
  await reloadEditor(page);
  await expect(markdownText(page)).toHaveValue('Unsaved text typed before the reload.');
  await expect(page.getByText('were restored')).toHaveCount(0);

  // Discarding restored text brings back the stored version.
  await markdown.fill('Throwaway text.');
  page.once('dialog', (dialog) => void dialog.accept().catch(() => {}));
  await page.reload();
  await expect(markdownText(page)).toHaveValue('Throwaway text.');
  await page.getByRole('button', { name: 'Discard restored changes' }).click();
  await expect(markdownText(page)).toHaveValue('Unsaved text typed before the reload.');
  expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([`console-preview-place:${post.id}`]);
});

test('leaving with unsaved changes asks first', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Do not lose me', markdown: 'Saved.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Saved.');
  await markdown.click();
  await page.keyboard.press('End');
  await page.keyboard.type(' And more, unsaved.');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  // A console link: a confirmation; declining keeps the page and the text.
  const asked: string[] = [];
  page.once('dialog', (dialog) => {
    asked.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.getByRole('link', { name: '← Articles' }).click();
  await expect.poll(() => asked).toEqual(['confirm: You have unsaved changes. Leave this page without saving them?']);
  await expect(page).toHaveURL(new RegExp(`/console/articles/${post.id}$`));
  await expect(markdownText(page)).toHaveValue('Saved. And more, unsaved.');

  // Leaving the console for another address: the browser's own leave-page prompt.
  page.once('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.dismiss();
  });
  await page.evaluate(() => {
    // A full-page navigation, as typing an address does, is the point here.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.href = '/console/media';
  });
  await expect
    .poll(() => asked)
    .toEqual(['confirm: You have unsaved changes. Leave this page without saving them?', 'beforeunload']);
  await expect(page).toHaveURL(new RegExp(`/console/articles/${post.id}$`));
  await expect(markdownText(page)).toHaveValue('Saved. And more, unsaved.');

  // Accepting the confirmation leaves.
  page.once('dialog', (dialog) => void dialog.accept().catch(() => {}));
  await page.getByRole('link', { name: '← Articles' }).click();
  await expect(page.getByRole('heading', { name: 'Articles', level: 1 })).toBeVisible();
});

test('before React owns the page, Save cannot submit the form natively (no text or CSRF token in the address)', async ({
  page,
  browser,
}) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Before hydration', markdown: 'Saved text.' });
  await signIn(page, token);
  // The same session with scripts off: the server's HTML as it stands before hydration.
  const noScript = await browser.newContext({
    baseURL: new URL(page.url()).origin,
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  const tab = await noScript.newPage();
  await tab.goto(`/console/articles/${post.id}`);
  await expect(markdownText(tab)).toHaveValue('Saved text.');
  const save = tab.getByRole('button', { name: 'Save', exact: true });
  await expect(save).toBeDisabled();
  const before = tab.url();
  await tab.getByLabel('Title', { exact: true }).fill('Typed before hydration');
  await tab.getByLabel('Title', { exact: true }).press('Enter');
  await tab.waitForLoadState();
  expect(tab.url()).toBe(before);
  expect(tab.url()).not.toContain('csrf');
  await noScript.close();

  // With scripts, the same button is enabled once the editor is live.
  await openEditor(page, post.id);
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
});
