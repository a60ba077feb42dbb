import { api, createPost } from './support/api';
import { expect, saveEditor, signIn, test, openEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * The history of every save on the article page, at a phone's width and a desktop's: each save
 * listed with its time and token, any two compared in the publish diff's view, and an older one
 * restored as an ordinary save (the version it replaced stays listed).
 */

for (const width of [390, 1440]) {
  test(`history lists each save, compares two and restores one (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    const token = tokenOf('author');
    const post = await createPost(token, { title: `History ${width}`, markdown: 'Version one has 5. items.' });
    expect(
      (await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Version two has 5 items.\n\nA new paragraph.' }))
        .status,
    ).toBe(200);
    await signIn(page, token);
    await openEditor(page, post.id);

    // A console save is the third.
    const markdown = page.getByLabel('Markdown');
    await markdown.fill('Version three, typed in the console.');
    await saveEditor(page);
    const history = page.getByRole('region', { name: 'History' });
    const rows = history.getByRole('row');
    await expect(rows).toHaveCount(4); // the header and three saves
    await expect(history.getByRole('row').nth(1)).toContainText('current');
    // Each save names the token it came through (the e2e accounts' first token is "default").
    const tokenName = (await rows.nth(1).getByRole('cell').nth(1).textContent())!.trim();
    expect(tokenName).not.toBe('unknown');
    await expect(rows.nth(3).getByRole('cell').nth(1)).toHaveText(tokenName);
    await expect(history.locator('time')).toHaveCount(3);

    // Compare the first save with the second: the publish diff's view, words marked in place.
    const options = history.getByLabel('Compare').locator('option');
    await history.getByLabel('Compare').selectOption({ index: 2 });
    await history.getByLabel('with', { exact: true }).selectOption({ index: 1 });
    expect(await options.count()).toBe(3);
    await history.getByRole('button', { name: 'Show changes' }).click();
    const diff = page.frameLocator('iframe[title="Changes between the two saves"]');
    await expect(diff.locator('.dp-diff--added')).toContainText('A new paragraph.');
    // "5." → "5": the full stop is what was removed, not the number.
    await expect(diff.locator('.dp-diff--changed del.dp-diff-word')).toHaveText(['one', '.']);
    await expect(diff.locator('.dp-diff--changed ins.dp-diff-word')).toHaveText(['two']);

    // Restore the first save: it becomes the working version, and the one it replaced stays.
    await history
      .getByRole('button', { name: /^Restore the version saved/ })
      .last()
      .click();
    // Restore asks first (e2e/console-restore.spec.ts tells the dialog's details).
    await page.getByRole('dialog').getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(
      page.getByText(/^Restored the version saved .* it is the working version now, saved\.$/),
    ).toBeVisible();
    await expect(markdownText(page)).toHaveValue('Version one has 5. items.');
    await expect(rows).toHaveCount(5);
    await expect(rows.nth(2).getByRole('cell').nth(2)).toHaveText(`History ${width}`);
    const stored = await api<{ html: string }>(token, 'GET', `/posts/${post.id}`);
    expect(stored.body.html).toContain('Version one has 5. items.');
  });
}

test('restoring waits while the editor holds unsaved text, and a stale version is refused like a save', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Restore rules', markdown: 'First.' });
  await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Second.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const history = page.getByRole('region', { name: 'History' });
  await page.getByLabel('Markdown').fill('Unsaved.');
  await expect(history.getByText('save or discard them before restoring')).toBeVisible();
  await expect(history.getByRole('button', { name: /^Restore the version saved/ })).toHaveAttribute(
    'aria-disabled',
    'true',
  );
  await history.getByRole('button', { name: /^Restore the version saved/ }).click({ force: true });
  await expect(markdownText(page)).toHaveValue('Unsaved.');
  await saveEditor(page);

  // Changed elsewhere since the page was loaded: If-Match refuses the restore, nothing is overwritten.
  await api(token, 'PATCH', `/posts/${post.id}`, { markdown: 'Changed through the API.' });
  await history
    .getByRole('button', { name: /^Restore the version saved/ })
    .last()
    .click();
  await page.getByRole('dialog').getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'This article was changed elsewhere' })).toBeVisible();
  const stored = await api<{ html: string }>(token, 'GET', `/posts/${post.id}`);
  expect(stored.body.html).toContain('Changed through the API.');
});
