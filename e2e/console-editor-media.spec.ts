import sharp from 'sharp';
import { createPost } from './support/api';
import { expect, saveEditor, signIn, test, openEditor, reloadEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * Getting pictures and videos in, and problems back out: a file-picker button that asks for
 * alternative text (suggested from the file name), a YouTube page address accepted by the video
 * island, library items labelled by their file name rather than their place in the list, and
 * removed links and images listed with a link to their line.
 */

function png(width: number, height: number, r: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g: 90, b: 40 } } })
    .png()
    .toBuffer();
}

test('add an image from a file: the alternative text is asked for, suggested from the file name', async ({ page }) => {
  const token = tokenOf('illustrator');
  const post = await createPost(token, { title: 'Picked pictures', markdown: 'Before.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Before.');
  await markdown.click();
  await page.keyboard.press('Control+End');

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add image from file…' }).click();
  await (await chooser).setFiles({ name: 'harbour-at-dawn.png', mimeType: 'image/png', buffer: await png(40, 30, 20) });
  const alt = page.getByLabel(/^Alternative text for harbour-at-dawn\.png/);
  await expect(alt).toHaveValue('harbour-at-dawn');
  await expect(alt).toBeFocused();
  await page.getByRole('button', { name: 'Insert image' }).click();
  await expect(markdownText(page)).toHaveValue(/^Before\.\n\n!\[harbour-at-dawn\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/);

  // The library lists it by its file name, also after a reload, never as "Image 1".
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();
  await reloadEditor(page);
  await page.getByRole('button', { name: 'Insert island…' }).click();
  const menu = page.getByRole('group', { name: 'Insert an island' });
  await expect(menu.locator('.media-picker__label').first()).toHaveText(
    /^harbour-at-dawn\.png, 40×30, stored \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
  );
  await menu.getByRole('button', { name: 'Cancel' }).click();
});

test('the video island accepts a YouTube page address', async ({ page }) => {
  const token = tokenOf('illustrator');
  const post = await createPost(token, { title: 'A video', markdown: 'Watch this.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Watch this.');
  await page.getByLabel('Markdown').click();
  await page.keyboard.press('Control+End');
  await page.getByRole('button', { name: 'Insert island…' }).click();
  const menu = page.getByRole('group', { name: 'Insert an island' });
  await menu.getByLabel('Island', { exact: true }).selectOption({ label: 'Video embed' });
  await menu.getByLabel('Video address').fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();
  await expect(menu).toBeHidden();
  await expect(markdownText(page)).toHaveValue(/src="https:\/\/www\.youtube\.com\/embed\/dQw4w9WgXcQ"/);
  await saveEditor(page);
  await expect(page.locator('.warning-box').filter({ hasText: 'Removed from what readers see' })).toHaveCount(0);
  await expect(page.frameLocator('iframe[title="Article preview"]').locator('[data-video]')).toHaveCount(1);
});

test('removed images and links are listed, each linked to its line', async ({ page }) => {
  const token = tokenOf('author');
  const post = await createPost(token, { title: 'Odd addresses', markdown: 'Start.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Start.');
  const text = [
    'Start.',
    '',
    '![A diagram](images/diagram.png)',
    '',
    'Click [here](javascript:alert(1)) for more.',
    '',
    'See [the notes](notes.html).',
  ].join('\n');
  await markdown.fill(text);
  await saveEditor(page);

  const removed = page.locator('.warning-box').filter({ hasText: 'Removed from what readers see' });
  const items = removed.getByRole('listitem');
  await expect(items).toHaveCount(3);
  await expect(items.nth(0)).toContainText('Line 3: The image “A diagram” was removed');
  await expect(items.nth(1)).toContainText('Line 5: The link “here” was removed');
  await expect(items.nth(2)).toContainText('Line 7: The link “the notes” was removed');

  await items.nth(1).getByRole('button', { name: 'Line 5' }).click();
  await expect(markdown).toBeFocused();
  const selection = await page.evaluate(() => document.getSelection()?.toString());
  expect(selection).toBe('Click [here](javascript:alert(1)) for more.');
});
