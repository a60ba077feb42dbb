import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createPost } from './support/api';
import { expect, screenshot, signIn, test, openEditor } from './support/console';
import { tokenOf } from './support/state';

/** A small real PNG, different per call so each upload is its own file. */
function png(width: number, height: number, color: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

test('media: upload with progress, drag-and-drop, store from URL, copy the snippet; stored images show in the sandboxed preview', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const token = tokenOf('author');
  await signIn(page, token);
  await page.getByRole('link', { name: 'Media' }).click();
  await expect(page.getByRole('heading', { name: 'Media', level: 1 })).toBeVisible();

  // Upload through the file picker.
  await page.setInputFiles('#media-file', {
    name: 'red.png',
    mimeType: 'image/png',
    buffer: await png(64, 48, { r: 200, g: 30, b: 30 }),
  });
  await expect(page.getByText('Stored red.png (64×48).')).toBeVisible();
  const snippet = (await page.locator('.stored .snippet').textContent())!;
  expect(snippet).toMatch(/^!\[\]\(\/api\/media\/[0-9a-f-]{36}\)$/);
  await page.locator('.stored').getByRole('button', { name: 'Copy Markdown' }).click();
  await expect(page.locator('.stored').getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

  // Drag-and-drop onto the drop zone.
  const bytes = [...(await png(32, 32, { r: 20, g: 120, b: 220 }))];
  const dataTransfer = await page.evaluateHandle((data) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(data)], 'blue.png', { type: 'image/png' }));
    return dt;
  }, bytes);
  await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer });
  await expect(page.getByText('Stored blue.png (32×32).')).toBeVisible();

  // A file that is not an image is refused in words.
  await page.setInputFiles('#media-file', {
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('not an image'),
  });
  await expect(page.locator('.dropzone ~ .error, section .error').first()).toBeVisible();
  await expect(page.locator('section .error').first()).not.toContainText('{');

  // Store from a URL (a local server; ALLOWED_PRIVATE_ADDRESSES lets the e2e service reach it).
  const green = await png(40, 30, { r: 30, g: 160, b: 60 });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': green.length });
    res.end(green);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await page.getByLabel('Image URL').fill(`http://127.0.0.1:${port}/green.png`);
    await page.getByRole('button', { name: 'Store image' }).click();
    await expect(page.getByText('Stored: 40×30 image/png.')).toBeVisible();
  } finally {
    server.close();
  }
  await page.reload();
  await expect(page.locator('.media-grid li')).toHaveCount(3);
  await screenshot(page, 'media');

  // The stored image in an article renders inside the CSP-sandboxed preview frame.
  const post = await createPost(token, { title: 'With a picture', markdown: `Look:\n\n${snippet}` });
  await openEditor(page, post.id);
  const image = page.frameLocator('iframe[title="Article preview"]').locator('img');
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);
});
