import { randomInt } from 'node:crypto';
import sharp from 'sharp';
import { api, createPost } from './support/api';
import { expect, openEditor, reloadEditor, saveEditor, signIn, test } from './support/console';
import { e2eState, tokenOf } from './support/state';

/**
 * The article's cover in the editor: one of the account's library images, or a new upload, is
 * chosen as the cover, shown in the live preview before it is saved, and saved as PATCH
 * /posts/{id} with `cover_asset_id` would; "Remove cover" saves no cover. Each image is a colour
 * of its own, so other specs' uploads to this account never meet it.
 */

function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: randomInt(256), g: randomInt(256), b: 90 } } })
    .png()
    .toBuffer();
}

interface ApiMedia {
  id: string;
  url: string;
  width: number;
  height: number;
}

interface ApiPostCover {
  cover_asset_id: string | null;
  cover_url: string | null;
  cover_width: number | null;
  cover_height: number | null;
}

/** POST /media, as an integration uploads a file (multipart, one `file` part). */
async function uploadMedia(token: string, name: string, bytes: Buffer): Promise<ApiMedia> {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  const res = await fetch(`${e2eState().baseUrl}/api/v1/author/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  const json = (await res.json()) as ApiMedia;
  if (res.status !== 200) throw new Error(`POST /media → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function coverOf(token: string, id: string): Promise<ApiPostCover> {
  const res = await api<ApiPostCover>(token, 'GET', `/posts/${id}`);
  expect(res.status).toBe(200);
  const { cover_asset_id, cover_url, cover_width, cover_height } = res.body;
  return { cover_asset_id, cover_url, cover_width, cover_height };
}

test('a library image becomes the cover: shown in the preview, saved as cover_asset_id, then removed', async ({
  page,
}) => {
  const token = tokenOf('illustrator');
  const media = await uploadMedia(token, 'cover-library.png', await png(72, 40));
  const post = await createPost(token, { title: 'With a cover', markdown: 'The text under the cover.' });
  expect((await coverOf(token, post.id)).cover_asset_id).toBeNull();

  await signIn(page, token);
  await openEditor(page, post.id);
  const cover = page.getByRole('group', { name: 'Cover', exact: true });
  await expect(cover.getByText('No cover', { exact: true })).toBeVisible();
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();

  await cover.getByRole('button', { name: 'Choose from library…' }).click();
  const library = cover.getByRole('group', { name: 'Images in your library' });
  await library.locator(`button[data-media-id="${media.id}"]`).click();
  await expect(library).toBeHidden();
  await expect(cover.getByRole('img', { name: 'Current cover' })).toHaveAttribute('src', `/api/media/${media.id}`);
  // A cover change is an unsaved change like any text.
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  // The live preview shows the chosen cover before it is saved.
  const frame = page.frameLocator('iframe[title="Article preview"]');
  await expect(page.getByRole('heading', { name: 'Live preview of your unsaved text' })).toBeVisible();
  const previewCover = frame.locator('img.dp-article__cover');
  await expect(previewCover).toHaveAttribute('src', `/api/media/${media.id}`);
  await expect.poll(() => previewCover.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(72);

  await saveEditor(page);
  expect(await coverOf(token, post.id)).toEqual({
    cover_asset_id: media.id,
    cover_url: `/api/media/${media.id}`,
    cover_width: 72,
    cover_height: 40,
  });
  // The saved version's preview has it too, and so does the editor after a reload.
  await expect(page.getByRole('heading', { name: 'Preview of the saved working version' })).toBeVisible();
  await expect(previewCover).toHaveAttribute('src', `/api/media/${media.id}`);
  await reloadEditor(page);
  await expect(cover.getByRole('img', { name: 'Current cover' })).toHaveAttribute('src', `/api/media/${media.id}`);
  await expect(page.getByText('All changes saved', { exact: true })).toBeVisible();

  await cover.getByRole('button', { name: 'Remove cover' }).click();
  await expect(cover.getByText('No cover', { exact: true })).toBeVisible();
  await expect(frame.locator('article.dp-article')).toBeVisible();
  await expect(previewCover).toHaveCount(0);
  await saveEditor(page);
  expect(await coverOf(token, post.id)).toEqual({
    cover_asset_id: null,
    cover_url: null,
    cover_width: null,
    cover_height: null,
  });
  await expect(page.getByRole('heading', { name: 'Preview of the saved working version' })).toBeVisible();
  await expect(frame.locator('article.dp-article')).toBeVisible();
  await expect(previewCover).toHaveCount(0);
});

test('an image uploaded in the cover picker becomes the cover once saved', async ({ page }) => {
  const token = tokenOf('illustrator');
  const post = await createPost(token, { title: 'An uploaded cover', markdown: 'Words.' });
  const name = `cover-${Date.now().toString(36)}.png`;
  await signIn(page, token);
  await openEditor(page, post.id);
  const cover = page.getByRole('group', { name: 'Cover', exact: true });
  await expect(cover.getByText('No cover', { exact: true })).toBeVisible();
  const quotaBefore = Number(await page.getByTestId('quota-left').getAttribute('data-bytes'));

  const chooser = page.waitForEvent('filechooser');
  await cover.getByRole('button', { name: 'Upload cover image…' }).click();
  await (await chooser).setFiles({ name, mimeType: 'image/png', buffer: await png(48, 32) });
  await expect(cover.getByRole('status')).toHaveText(`Stored ${name} (48×32): it is the cover now; save to keep it.`);
  const current = cover.getByRole('img', { name: 'Current cover' });
  await expect(current).toHaveAttribute('src', /^\/api\/media\/[0-9a-f-]{36}$/);
  const id = (await current.getAttribute('src'))!.slice('/api/media/'.length);
  // Nothing is saved until Save.
  expect((await coverOf(token, post.id)).cover_asset_id).toBeNull();
  // It is in the page's one library and quota: the insert menu offers it, and the quota shown went down.
  const quota = page.getByTestId('quota-left');
  await expect(quota).not.toHaveAttribute('data-bytes', String(quotaBefore));
  await page.getByRole('button', { name: 'Insert island…' }).click();
  const menu = page.getByRole('group', { name: 'Insert an island' });
  await expect(menu.locator('.media-picker__label').first()).toHaveText(
    new RegExp(`^${name.replace('.', '\\.')}, 48×32`),
  );
  await menu.getByRole('button', { name: 'Cancel' }).click();

  await saveEditor(page);
  expect(await coverOf(token, post.id)).toEqual({
    cover_asset_id: id,
    cover_url: `/api/media/${id}`,
    cover_width: 48,
    cover_height: 32,
  });
  await expect(page.frameLocator('iframe[title="Article preview"]').locator('img.dp-article__cover')).toHaveAttribute(
    'src',
    `/api/media/${id}`,
  );
});
