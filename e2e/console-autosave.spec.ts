import { api, createPost } from './support/api';
import { expect, markdownText, openEditor, reloadEditor, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * Autosave (app/console/articles/[id]/use-autosave.ts, README "Autosave"): the working version
 * saves itself a few seconds after typing stops, through the same save as the button; a run of
 * autosaves of one editor visit is one history entry until a manual save; the writer can turn it
 * off (kept in the browser); and it takes at most half of a minute's writes, so an integration
 * sharing the account keeps the rest. The specs' browsers start with it off (support/console.ts).
 */

/** The article's working text as the API stores it: its HTML's text, paragraph by paragraph. */
async function storedText(token: string, id: string): Promise<string> {
  const { body } = await api<{ html: string }>(token, 'GET', `/posts/${id}`);
  return [...body.html.matchAll(/<p>(.*?)<\/p>/gs)].map((m) => m[1]).join('\n\n');
}

for (const [width, height] of [
  [390, 844],
  [1400, 900],
] as const) {
  test(`autosave saves after a pause, as one history entry per run, until a manual save (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    const token = tokenOf('author');
    const post = await createPost(token, { title: `Autosaved ${width}`, markdown: 'Version one.' });
    await signIn(page, token);
    await openEditor(page, post.id);
    const history = page.getByRole('region', { name: 'History' });
    const rows = history.getByRole('row');
    await expect(rows).toHaveCount(2); // the header and the create

    const toggle = page.getByRole('checkbox', { name: 'Autosave' });
    await expect(toggle).not.toBeChecked();
    await toggle.check();
    const markdown = page.getByLabel('Markdown');
    await markdown.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Typed on.');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
    // Nothing pressed: it saves by itself once typing stops.
    await expect(page.getByText('All changes saved', { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('saved just now')).toBeVisible();
    expect(await storedText(token, post.id)).toBe('Version one. Typed on.');
    // A plain autosave says nothing more than the action bar does.
    await expect(page.getByText('Saved.', { exact: true })).toHaveCount(0);
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toContainText('autosaved');

    // A second autosave of this visit replaces the first in the history instead of adding to it.
    await page.keyboard.type(' And on.');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
    await expect(page.getByText('All changes saved', { exact: true })).toBeVisible({ timeout: 25_000 });
    expect(await storedText(token, post.id)).toBe('Version one. Typed on. And on.');
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toContainText('autosaved');
    await expect(rows.nth(2)).not.toContainText('autosaved');

    // A manual save ends the run: the run's last autosave stays as its own entry.
    await page.keyboard.type(' Saved by hand.');
    await page.keyboard.press('Control+s');
    await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(1)).not.toContainText('autosaved');
    await expect(rows.nth(2)).toContainText('autosaved');
    expect(await storedText(token, post.id)).toBe('Version one. Typed on. And on. Saved by hand.');

    // The choice is kept in this browser: after a reload it is still on; turned off, nothing is saved.
    await reloadEditor(page);
    await expect(toggle).toBeChecked();
    await toggle.uncheck();
    await page.getByLabel('Markdown').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Not autosaved.');
    await page.waitForTimeout(6_000); // twice the pause after which autosave would save
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
    expect(await storedText(token, post.id)).toBe('Version one. Typed on. And on. Saved by hand.');
    await reloadEditor(page);
    await expect(toggle).not.toBeChecked();
  });
}

test('unsaved text brought back after a reload is not autosaved until the writer types again', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Restored, not autosaved', markdown: 'Stored.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await page.getByRole('checkbox', { name: 'Autosave' }).check();
  await page.getByLabel('Markdown').fill('Typed, then the page reloaded.');
  page.once('dialog', (dialog) => void dialog.accept().catch(() => {})); // the leave-page prompt, if shown
  await reloadEditor(page); // well within autosave's pause
  await expect(page.getByText('Your unsaved changes from before the reload were restored')).toBeVisible();
  await expect(markdownText(page)).toHaveValue('Typed, then the page reloaded.');
  await page.waitForTimeout(6_000); // twice autosave's pause: the writer may still discard it
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  expect(await storedText(token, post.id)).toBe('Stored.');

  await page.getByLabel('Markdown').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' More.');
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible({ timeout: 15_000 });
  expect(await storedText(token, post.id)).toBe('Typed, then the page reloaded. More.');
});

test('autosave takes at most half of the minute’s writes: past that it waits, and the API keeps the rest', async ({
  page,
}) => {
  const token = tokenOf('metered'); // write_per_min=4: autosaves may bring the window to 2
  // The fixed window must not turn over mid-test: start early in a minute.
  const second = new Date().getUTCSeconds();
  if (second > 30) await page.waitForTimeout((61 - second) * 1000);
  // Two writes of this minute, before the editor opens: half of the limit.
  const post = await createPost(token, { title: 'Metered', markdown: 'Start.' });
  const other = await createPost(token, { title: 'Integration’s own', markdown: 'Theirs.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await page.getByRole('checkbox', { name: 'Autosave' }).check();

  await page.getByLabel('Markdown').fill('Start. Typed while the integration writes.');
  // Half of the limit is used: the autosave takes nothing and says it waits for the next minute.
  await expect(page.getByText('autosave waits for the next minute')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await expect(page.getByText(/^Not saved\./)).toHaveCount(0); // a wait, not a problem
  expect(await storedText(token, post.id)).toBe('Start.');
  // The integration still writes: typing also spent writes on the live preview (it converts the
  // text), which is why the autosave found half the minute used; the rest is the integration's.
  expect((await api(token, 'PATCH', `/posts/${other.id}`, { markdown: 'Theirs, edited.' })).status).toBe(200);
  expect(await storedText(token, post.id)).toBe('Start.');

  // In the next minute the autosave goes through by itself.
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible({ timeout: 75_000 });
  await expect(markdownText(page)).toHaveValue('Start. Typed while the integration writes.');
  expect(await storedText(token, post.id)).toBe('Start. Typed while the integration writes.');
});
