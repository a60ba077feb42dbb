import sharp from 'sharp';
import { api, createPost, publish } from './support/api';
import { expect, signIn, test } from './support/console';
import { e2eState, tokenOf } from './support/state';

/**
 * Layout details readers and maintainers see: a captioned image narrower than the column sits
 * under its caption's centre (the caption was centred on the column, the image at its left),
 * and a dialog keeps a margin on each side of a phone's screen.
 */

test('a captioned image narrower than the column is centred with its caption, on the public page at 1280 px', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  // Its own media library: the media page's spec counts the author's.
  const token = tokenOf('illustrator');
  const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 20, g: 120, b: 60 } } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'narrow.png');
  const upload = await fetch(`${e2eState().baseUrl}/api/v1/author/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(upload.status).toBe(200);
  const { url } = (await upload.json()) as { url: string };
  const post = await createPost(token, {
    title: 'A narrow figure',
    markdown: `Before.\n\n<figure class="dp-figure"><img src="${url}" alt="A narrow image"><figcaption class="dp-figure__caption">A caption under it</figcaption></figure>\n\nAfter.`,
  });
  await publish(token, post.id);
  expect((await api(token, 'GET', `/posts/${post.id}`)).status).toBe(200);

  await page.goto(post.canonical_path);
  const image = page.getByRole('img', { name: 'A narrow image' });
  await expect(image).toBeVisible();
  const caption = page.locator('figcaption', { hasText: 'A caption under it' });
  const imageBox = (await image.boundingBox())!;
  const captionBox = (await caption.boundingBox())!;
  // The image is narrower than the column, and both share one centre.
  expect(imageBox.width).toBeLessThan(captionBox.width - 100);
  expect(Math.abs(imageBox.x + imageBox.width / 2 - (captionBox.x + captionBox.width / 2))).toBeLessThan(2);
});

test('a dialog keeps a margin on both sides of a 390 px screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, tokenOf('illustrator'));
  await page.goto('/console/account');
  // Opened and cancelled: the account's tokens stay as they are.
  await page.getByRole('button', { name: 'Revoke', exact: true }).first().click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(12);
  expect(390 - (box.x + box.width)).toBeGreaterThanOrEqual(12);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});
