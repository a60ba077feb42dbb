/**
 * Stored files belong to an account: an article may show only its own account's files (cover,
 * body images, `<video>`, GIF islands), a foreign or unknown `/api/media/{uuid}` is refused with
 * 400 naming it before anything is stored, and the files of a deleted account stop being served.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/service';
import { api, baseUrl, createPost, newAccount, serviceEnv } from '../support/api';
import { mediaForm, solidPng } from './media-helpers';

const UNKNOWN = '11111111-1111-4111-8111-111111111111';

async function upload(token: string) {
  const res = await api('POST', '/media', { token, body: mediaForm(await solidPng(8, 8)) });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; url: string };
}

let owner: { token: string; id: string };
let other: { token: string; id: string };
let own: { id: string; url: string };
let foreign: { id: string; url: string };

beforeAll(async () => {
  owner = await newAccount();
  other = await newAccount();
  own = await upload(owner.token);
  foreign = await upload(other.token);
});

describe('an article shows only files of its own account', () => {
  it('accepts the account’s own file as an image, a video and a GIF island', async () => {
    const markdown = [
      `![mine](${own.url})`,
      `<video src="${own.url}"></video>`,
      `<div class="dp-gif" data-gif="${own.id}"><video src="${own.url}" autoplay loop muted playsinline></video></div>`,
    ].join('\n\n');
    const res = await api('POST', '/posts', { token: owner.token, json: { title: 'Mine', markdown } });
    expect(res.status, res.text).toBe(201);
    const stored = await api('GET', `/posts/${res.body.id}`, { token: owner.token });
    expect(stored.body.html).toContain(`<img src="${own.url}" alt="mine">`);
    expect(stored.body.html).toContain(`data-gif="${own.id}"`);
  });

  it.each([
    ['an image', (url: string) => `![theirs](${url})`],
    ['an HTML image', (url: string) => `<img src="${url}" alt="x">`],
    ['a video', (url: string) => `<video src="${url}"></video>`],
    [
      'a GIF island',
      (url: string) =>
        `<div class="dp-gif" data-gif="${url.slice(-36)}"><video src="${url}" autoplay loop muted playsinline></video></div>`,
    ],
  ])('refuses %s of another account or of no account on POST and PATCH, naming it', async (_kind, markup) => {
    for (const id of [foreign.id, UNKNOWN]) {
      const url = `/api/media/${id}`;
      const created = await api('POST', '/posts', {
        token: owner.token,
        json: { title: 'Borrowed', markdown: `Text.\n\n${markup(url)}` },
      });
      expect(created.status, created.text).toBe(400);
      expect(created.body).toEqual({ error: `markdown: not among your media: ${url}` });

      const post = await createPost(owner.token);
      const patched = await api('PATCH', `/posts/${post.id}`, {
        token: owner.token,
        json: { markdown: `Text.\n\n${markup(url)}` },
      });
      expect(patched.status, patched.text).toBe(400);
      expect(patched.body).toEqual({ error: `markdown: not among your media: ${url}` });
      // Nothing was stored: the article keeps its body.
      const stored = await api('GET', `/posts/${post.id}`, { token: owner.token });
      expect(stored.body.html).not.toContain(id);
    }
  });

  it('a media path mentioned as text or code is not a reference', async () => {
    const res = await api('POST', '/posts', {
      token: owner.token,
      json: { title: 'Docs', markdown: `Use \`![x](${foreign.url})\` in your Markdown.` },
    });
    expect(res.status, res.text).toBe(201);
  });

  it('the cover follows the same rule', async () => {
    for (const field of [{ cover_asset_id: foreign.id }, { cover_url: foreign.url }]) {
      const res = await api('POST', '/posts', { token: owner.token, json: { title: 'C', markdown: 'x', ...field } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatch(/no image .* among your media/);
    }
  });
});

describe('files of a deleted account', () => {
  it('stop being served (404 on GET and HEAD)', async () => {
    const gone = await newAccount();
    const media = await upload(gone.token);
    expect((await fetch(`${baseUrl()}${media.url}`)).status).toBe(200);
    const res = await cli(serviceEnv(), ['account', 'delete', gone.handle]);
    expect(res.code, res.stderr).toBe(0);
    expect((await fetch(`${baseUrl()}${media.url}`)).status).toBe(404);
    expect((await fetch(`${baseUrl()}${media.url}`, { method: 'HEAD' })).status).toBe(404);
    // Another account's files are unaffected.
    expect((await fetch(`${baseUrl()}${own.url}`)).status).toBe(200);
  });
});
