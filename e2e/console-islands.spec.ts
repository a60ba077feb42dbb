import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { api, createPost } from './support/api';
import { expect, saveEditor, signIn, test, openEditor, markdownText } from './support/console';
import { tokenOf } from './support/state';

/**
 * Islands without memorising markup: the editor's insert menu writes each island of the
 * contract at the cursor (stored media picked from the library), and the pipeline keeps every
 * one of them (nothing is reported removed, each renders in the preview). Dropping or pasting
 * an image file into the Markdown field uploads it with a progress bar and inserts it; what
 * cannot be stored is refused in words, and the quota left is shown.
 */

function png(width: number, height: number, color: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all([png(24, 24, { r: 255, g: 0, b: 0 }), png(24, 24, { r: 0, g: 0, b: 255 })]);
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: [100, 100] })
    .toBuffer();
}

/** Drops (or pastes) a file onto the Markdown field, as the browser does for a real one. */
async function dropFile(
  page: Page,
  file: { name: string; type: string; bytes: Buffer | number },
  how: 'drop' | 'paste',
) {
  const data = typeof file.bytes === 'number' ? file.bytes : [...file.bytes];
  await page.getByLabel('Markdown').evaluate(
    (el, { name, type, data, how }) => {
      const bytes = typeof data === 'number' ? new Uint8Array(data) : new Uint8Array(data);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type }));
      const event =
        how === 'drop'
          ? new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true })
          : new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
      el.dispatchEvent(event);
    },
    { name: file.name, type: file.type, data, how },
  );
}

async function pickIsland(page: Page, label: string) {
  const toggle = page.getByRole('button', { name: 'Insert island…' });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const menu = page.getByRole('group', { name: 'Insert an island' });
  await menu.getByLabel('Island', { exact: true }).selectOption({ label });
  return menu;
}

test('drop or paste an image into the editor: progress, insertion, quota left, and refusals in words', async ({
  page,
}) => {
  const token = tokenOf('illustrator');
  const post = await createPost(token, { title: 'Dropped pictures', markdown: 'Before.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  await expect(markdownText(page)).toHaveValue('Before.');
  const quota = page.getByTestId('quota-left');
  const quotaBefore = Number(await quota.getAttribute('data-bytes'));
  expect(quotaBefore).toBeGreaterThan(0);

  // Hold the upload a moment so its progress bar can be seen.
  await page.route('**/console/media/upload', async (route) => {
    await new Promise((r) => setTimeout(r, 700));
    await route.continue();
  });
  await page.getByLabel('Markdown').click();
  await page.keyboard.press('End');
  await dropFile(
    page,
    { name: 'red.png', type: 'image/png', bytes: await png(64, 48, { r: 200, g: 0, b: 0 }) },
    'drop',
  );
  // The alternative text is asked for first, suggested from the file name; nothing is stored yet.
  await expect(page.getByLabel(/^Alternative text for red\.png/)).toHaveValue('red');
  await expect(page.getByLabel(/^Alternative text for red\.png/)).toBeFocused();
  await page.getByLabel(/^Alternative text for red\.png/).fill('A red rectangle');
  await page.getByRole('button', { name: 'Insert image' }).click();
  await expect(page.getByRole('progressbar', { name: 'Uploading red.png' })).toBeVisible();
  await expect(page.getByText('Stored red.png (64×48) and inserted it.')).toBeVisible();
  await expect(markdownText(page)).toHaveValue(/^Before\.\n\n!\[A red rectangle\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/);
  await expect.poll(async () => Number(await quota.getAttribute('data-bytes'))).toBeLessThan(quotaBefore);

  await dropFile(
    page,
    { name: 'blue.png', type: 'image/png', bytes: await png(32, 32, { r: 0, g: 0, b: 200 }) },
    'paste',
  );
  await page.getByLabel(/^Alternative text for blue\.png/).press('Enter'); // the suggestion, as it is
  await expect(page.getByText('Stored blue.png (32×32) and inserted it.')).toBeVisible();
  await expect(markdownText(page)).toHaveValue(
    /!\[A red rectangle\]\(\/api\/media\/[0-9a-f-]{36}\)\n\n!\[blue\]\(\/api\/media\/[0-9a-f-]{36}\)\n$/,
  );
  await page.unroute('**/console/media/upload');

  // Refusals, in words: too large and unsupported without uploading.
  const uploads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/console/media/upload')) uploads.push(r.url());
  });
  // "Do not insert" stores nothing: no upload, no file counting against the day's quota.
  const quotaBeforeCancel = Number(await quota.getAttribute('data-bytes'));
  await dropFile(
    page,
    { name: 'unused.png', type: 'image/png', bytes: await png(8, 8, { r: 0, g: 99, b: 0 }) },
    'drop',
  );
  await page.getByRole('button', { name: 'Do not insert' }).click();
  await expect(page.getByText('unused.png was not stored or inserted.')).toBeVisible();
  expect(Number(await quota.getAttribute('data-bytes'))).toBe(quotaBeforeCancel);
  await dropFile(page, { name: 'huge.png', type: 'image/png', bytes: 51 * 1024 * 1024 }, 'drop');
  await expect(page.locator('p.error[role="alert"]')).toContainText(
    'huge.png is 51 MiB: images may be at most 50 MiB.',
  );
  await dropFile(page, { name: 'notes.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4') }, 'drop');
  await expect(page.locator('p.error[role="alert"]')).toContainText(
    'notes.pdf is not an image the service stores (application/pdf).',
  );
  expect(uploads).toEqual([]);
  // A local animated GIF gets in too: stored as a looping video and inserted as the GIF island.
  await dropFile(page, { name: 'moving.gif', type: 'image/gif', bytes: await animatedGif() }, 'drop');
  await expect(page.getByText('Stored moving.gif as a looping video and inserted it.')).toBeVisible();
  await expect(markdownText(page)).toHaveValue(
    /<div class="dp-gif" data-gif="([0-9a-f-]{36})"><video src="\/api\/media\/\1" autoplay loop muted playsinline><\/video><\/div>\n$/,
  );

  await saveEditor(page);
  await expect(page.frameLocator('iframe[title="Article preview"]').locator('img')).toHaveCount(2);
  await expect(page.frameLocator('iframe[title="Article preview"]').locator('video')).toHaveCount(1);
});

test('the insert menu writes every island at the cursor, and the pipeline keeps each one', async ({ page }) => {
  const token = tokenOf('illustrator');
  // The library: two images and a GIF (stored from a URL, which makes it a video).
  const gifBytes = await animatedGif();
  const images = [await png(60, 40, { r: 10, g: 150, b: 10 }), await png(60, 40, { r: 150, g: 10, b: 150 })];
  const server = http.createServer((req, res) => {
    const body = req.url === '/moving.gif' ? gifBytes : images[req.url === '/a.png' ? 0 : 1]!;
    res.writeHead(200, { 'content-type': req.url === '/moving.gif' ? 'image/gif' : 'image/png' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    for (const file of ['a.png', 'b.png', 'moving.gif']) {
      const stored = await api(token, 'POST', '/media/from-url', { url: `http://127.0.0.1:${port}/${file}` });
      expect(stored.status, file).toBe(200);
    }
  } finally {
    server.close();
  }

  const post = await createPost(token, { title: 'Every island', markdown: 'Top.\n\nBottom.' });
  await signIn(page, token);
  await openEditor(page, post.id);
  const markdown = page.getByLabel('Markdown');
  await expect(markdownText(page)).toHaveValue('Top.\n\nBottom.');
  // The cursor after "Top.": everything is inserted between the two paragraphs.
  await markdown.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');

  let menu = await pickIsland(page, 'Captioned image');
  await menu.getByRole('radio').first().check();
  await menu.getByLabel('Alternative text').fill('A green square');
  await menu.getByLabel('Caption').fill('Green, "quoted" & <escaped>');
  mkdirSync(path.resolve('test-results', 'screenshots'), { recursive: true });
  await page.screenshot({ path: path.resolve('test-results', 'screenshots', 'insert-menu.png') });
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();
  await expect(menu).toBeHidden();

  menu = await pickIsland(page, 'Gallery');
  const boxes = await menu.getByRole('checkbox').all();
  expect(boxes.length).toBeGreaterThanOrEqual(2);
  for (const box of boxes) await box.check();
  await menu.getByLabel('Caption for the gallery').fill('Two squares');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();

  // A player address the allowlist does not know is refused before inserting.
  menu = await pickIsland(page, 'Video embed');
  await menu.getByLabel('Video address').fill('https://example.com/watch?v=1');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();
  await expect(menu.getByRole('alert')).toContainText('not the address of a video on a known provider');
  await menu.getByLabel('Video address').fill('https://www.youtube.com/embed/dQw4w9WgXcQ');
  await menu.getByLabel('Video address').press('Enter'); // Enter inserts, never submits the article
  await expect(menu).toBeHidden();

  menu = await pickIsland(page, 'Generic embed');
  await menu
    .getByLabel('Embed address')
    .fill('https://www.figma.com/embed?embed_host=share&url=https://www.figma.com/file/abc');
  await menu.getByLabel('Title').fill('Design file');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();

  menu = await pickIsland(page, 'Link card');
  await menu.getByLabel('Link address').fill('https://example.org/story');
  await menu.getByLabel('Title').fill('A story');
  await menu.getByLabel('Description').fill('Worth reading');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();

  menu = await pickIsland(page, 'Spoiler');
  await menu.getByLabel('Visible summary').fill('Ending');
  await menu.getByLabel('Hidden text').fill('They sail home.');
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();

  menu = await pickIsland(page, 'GIF');
  await menu.getByRole('radio').first().check();
  await menu.getByRole('button', { name: 'Insert at cursor' }).click();

  const text = await markdownText(page).inputValue();
  expect(text.startsWith('Top.\n\n<figure class="dp-figure">')).toBe(true);
  expect(text.endsWith('\n\nBottom.')).toBe(true);
  expect(text).toContain('Green, &quot;quoted&quot; &amp; &lt;escaped&gt;');

  await saveEditor(page);
  await expect(page.locator('.warning-box').filter({ hasText: 'Removed from what readers see' })).toHaveCount(0);
  const preview = page.frameLocator('iframe[title="Article preview"]');
  await expect(preview.locator('figure.dp-figure img[alt="A green square"]').first()).toBeVisible();
  await expect(preview.locator('figure.dp-figure figcaption').first()).toHaveText('Green, "quoted" & <escaped>');
  await expect(preview.locator('.dp-gallery .dp-gallery__items figure')).toHaveCount(boxes.length);
  await expect(preview.locator('[data-video] iframe')).toHaveAttribute('src', /youtube\.com\/embed\/dQw4w9WgXcQ/);
  await expect(preview.locator('.dp-embed iframe')).toHaveAttribute('src', /figma\.com/);
  await expect(preview.locator('a.dp-link-card')).toContainText('A story');
  await expect(preview.locator('details summary')).toHaveText('Ending');
  await expect(preview.locator('.dp-gif video')).toHaveCount(1);
  const order = await preview
    .locator('.dp-article__body > *')
    .evaluateAll((els) => els.map((e) => e.tagName.toLowerCase()));
  expect(order.at(1)).toBe('p'); // "Top." stays first after the title, "Bottom." last
  expect(order.at(-1)).toBe('p');
});
