import { randomInt } from 'node:crypto';
import sharp from 'sharp';
import { createPost } from './support/api';
import { expect, signIn, test, openEditor, reloadEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * The same file added twice in the editor: the second time the console says the file is already
 * in the library (and when it was stored), inserts the entry it has, takes nothing from today's
 * media quota, and the library still lists the file once. The file is a colour of its own and
 * its name is the run's own, so other specs' uploads to this account never meet it.
 */

function png(width: number, height: number, r: number, g: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b: 40 } } })
    .png()
    .toBuffer();
}

test('a file added twice is one library entry, inserted both times, and the second time says so', async ({ page }) => {
  const token = tokenOf('illustrator');
  const post = await createPost(token, { title: 'The same picture twice', markdown: 'Before.' });
  const name = `twice-${Date.now().toString(36)}.png`;
  const file = { name, mimeType: 'image/png', buffer: await png(36, 24, randomInt(256), randomInt(256)) };
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Before.');
  await markdown.click();
  await page.keyboard.press('Control+End');
  const quota = page.getByTestId('quota-left');

  const addFromFile = async () => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add image from file…' }).click();
    await (await chooser).setFiles(file);
    await expect(page.getByLabel(/^Alternative text for twice-/)).toBeFocused();
    await page.getByRole('button', { name: 'Insert image' }).click();
  };

  await addFromFile();
  const stored = page.getByRole('status').filter({ hasText: `Stored ${name} (36×24) and inserted it.` });
  await expect(stored).toBeVisible();
  await expect(markdownText(page)).toHaveValue(/^Before\.\n\n!\[twice-[0-9a-z]+\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/);
  const firstId = /\/api\/media\/([0-9a-f-]{36})/.exec(await markdownText(page).inputValue())![1];
  const quotaAfterFirst = await quota.getAttribute('data-bytes');

  await addFromFile();
  const notice = page.getByRole('status').filter({ hasText: 'This file is already in your library' });
  await expect(notice).toHaveText(
    /^This file is already in your library \(stored \d{4}-\d\d-\d\d \d\d:\d\d UTC\); the existing copy was used, and nothing was taken from today's media quota\. It was inserted\.$/,
  );
  // Both images are the first entry; the quota left is what the first upload left.
  await expect
    .poll(async () =>
      [...(await markdownText(page).inputValue()).matchAll(/\/api\/media\/([0-9a-f-]{36})/g)].map((m) => m[1]),
    )
    .toEqual([firstId, firstId]);
  await expect(quota).toHaveAttribute('data-bytes', quotaAfterFirst!);

  // The insert menu's library has the file once, before a reload and after it (from the server).
  const libraryEntries = async () => {
    await page.getByRole('button', { name: 'Insert island…' }).click();
    const menu = page.getByRole('group', { name: 'Insert an island' });
    await expect(menu.locator('.media-picker__label').first()).toBeVisible();
    const count = await menu.locator('.media-picker__label').filter({ hasText: name }).count();
    await menu.getByRole('button', { name: 'Cancel' }).click();
    return count;
  };
  expect(await libraryEntries()).toBe(1);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  await reloadEditor(page);
  expect(await libraryEntries()).toBe(1);
});
