/**
 * Edits never lose, corrupt or repeat work, checked over HTTP against the real service:
 * concurrent writes of one article, the stored html always matching the stored fields, the
 * rehost memory (counted requests to a local image server, quota read back from GET /me),
 * refused writes that cost nothing, IPv6 literal image URLs, UUID ids, local covers,
 * idempotent publish, lifted iframes, and conditional requests (ETag, If-Match, If-None-Match).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderArticleSync } from '../../server/content/pipeline';
import { api, baseUrl, createPost, newAccount, serviceEnv } from '../support/api';
import { API_ONLY, cli, metricsOf } from '../support/service';
import {
  countMediaRows,
  mediaForm,
  solidPng,
  startExtraService,
  startFileServer,
  type ExtraService,
  type FileServer,
} from './media-helpers';
import { sharedDatabaseUrl } from '../support/shared-database';

let files: FileServer;
let db: pg.Client;

beforeAll(async () => {
  files = await startFileServer({});
  for (const name of ['a', 'b', 'c', 'cover', 'later', 'refused', 'stale', 'local']) {
    files.routes[`/${name}.png`] = {
      type: 'image/png',
      body: await solidPng(20 + name.length, 10, name.length * 20, 90, 40),
    };
  }
  db = new pg.Client({ connectionString: await sharedDatabaseUrl() });
  await db.connect();
});
afterAll(async () => {
  await files?.close();
  await db?.end();
});

/** Requests that reached the image server so far, all paths together. */
const totalHits = () => Object.values(files.hits).reduce((a, b) => a + b, 0);
const usedToday = async (token: string) =>
  (await api('GET', '/me', { token })).body.limits.daily_media_bytes_used as number;
const imgSrcs = (html: string) => [...html.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]!);
const getPost = (token: string, id: string, headers?: Record<string, string>) =>
  api('GET', `/posts/${id}`, { token, headers });
const patch = (token: string, id: string, json: unknown, headers?: Record<string, string>) =>
  api('PATCH', `/posts/${id}`, { token, json, headers });
const stored = async (id: string) =>
  (
    await db.query<{ title: string; markdown: string; html: string }>(
      'SELECT title, markdown, html FROM posts WHERE id = $1',
      [id],
    )
  ).rows[0]!;
const withoutHtml = ({ html: _html, ...rest }: Record<string, unknown>) => rest;

describe('concurrent writes of one article', () => {
  it('20 parallel PATCHes: 20 × 200, each response shows its own change, the last writer wins', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Start', markdown: 'Body.' });
    const titles = Array.from({ length: 20 }, (_, i) => `Parallel title ${i}`);
    const responses = await Promise.all(titles.map((title) => patch(token, post.id, { title })));
    expect(responses.map((r) => r.status)).toEqual(titles.map(() => 200));
    responses.forEach((r, i) => expect(r.body.title).toBe(titles[i]));
    // Every write got its own version: updated_at strictly increases in commit order.
    const byTime = [...responses].sort((a, b) => Date.parse(a.body.updated_at) - Date.parse(b.body.updated_at));
    expect(new Set(responses.map((r) => r.body.updated_at)).size).toBe(20);
    expect(new Set(responses.map((r) => r.headers.get('etag'))).size).toBe(20);
    const last = byTime[byTime.length - 1]!;
    const final = await getPost(token, post.id);
    expect(final.status).toBe(200);
    expect(withoutHtml(final.body)).toEqual(last.body);
    expect(final.headers.get('etag')).toBe(last.headers.get('etag'));
    expect(final.body.html).toContain(`<h1>${last.body.title}</h1>`);
  });

  it('50 rounds of a title PATCH racing a Markdown PATCH: the stored html is always the rendering of the stored title and Markdown', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Round 0', markdown: 'Text of round 0.' });
    for (let round = 1; round <= 50; round++) {
      const [byTitle, byMarkdown] = await Promise.all([
        patch(token, post.id, { title: `Round ${round}` }),
        patch(token, post.id, { markdown: `Text of round ${round}, *emphasised*.` }),
      ]);
      expect([byTitle.status, byMarkdown.status], `round ${round}`).toEqual([200, 200]);
      const row = await stored(post.id);
      expect(row.title).toBe(`Round ${round}`);
      expect(row.markdown).toBe(`Text of round ${round}, *emphasised*.`);
      expect(row.html, `round ${round}`).toBe(renderArticleSync({ markdown: row.markdown, title: row.title }).html);
    }
    expect((await getPost(token, post.id)).body.html).toBe(
      renderArticleSync({ markdown: 'Text of round 50, *emphasised*.', title: 'Round 50' }).html,
    );
  }, 180_000);
});

describe('rehost memory: a stored image is not downloaded again', () => {
  it('title-only and subtitle-only PATCHes fetch nothing and charge nothing; images stay local', async () => {
    const { token, id: accountId } = await newAccount();
    const markdown = `![A](${files.url('/a.png')})\n\nText.\n\n![B](${files.url('/b.png')})`;
    const created = await api('POST', '/posts', { token, json: { title: 'Pictures', markdown } });
    expect(created.status, created.text).toBe(201);
    const srcs = imgSrcs((await getPost(token, created.body.id)).body.html);
    expect(srcs).toHaveLength(2);
    for (const src of srcs) expect(src).toMatch(/^\/api\/media\//);
    const hits = totalHits();
    const used = await usedToday(token);
    const rows = await countMediaRows(accountId);

    for (const json of [
      { title: 'Pictures, renamed' },
      { subtitle: 'Now with a subtitle' },
      { title: 'Again', subtitle: null },
      { tags: ['x'] },
    ]) {
      const res = await patch(token, created.body.id, json);
      expect(res.status, res.text).toBe(200);
      expect(res.body).not.toHaveProperty('rehost_failed');
      expect(res.body).not.toHaveProperty('warnings');
    }
    expect(totalHits()).toBe(hits);
    expect(await usedToday(token)).toBe(used);
    expect(await countMediaRows(accountId)).toBe(rows);
    const after = (await getPost(token, created.body.id)).body.html as string;
    expect(imgSrcs(after)).toEqual(srcs);
    expect(after).toContain('<h1>Again</h1>');
  });

  it('a Markdown PATCH downloads only the images this article never stored; a cover_url it stored is reused', async () => {
    const { token, id: accountId } = await newAccount({ limits: { media_per_min: 3 } });
    const created = await api('POST', '/posts', {
      token,
      json: { title: 'Memory', markdown: `![A](${files.url('/a.png')})` },
    });
    expect(created.status, created.text).toBe(201);
    const [firstSrc] = imgSrcs((await getPost(token, created.body.id)).body.html);
    const before = { a: files.hits['/a.png'] ?? 0, c: files.hits['/c.png'] ?? 0 };
    const used = await usedToday(token);

    // Three more edits keeping the known image: with one media unit per re-download, the minute
    // window of 3 would run out; remembered images do not count.
    for (let i = 0; i < 3; i++) {
      const res = await patch(token, created.body.id, { markdown: `Edit ${i}\n\n![A again](${files.url('/a.png')})` });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('warnings');
    }
    expect(files.hits['/a.png']).toBe(before.a);
    const added = await patch(token, created.body.id, {
      markdown: `![A](${files.url('/a.png')})\n\n![C](${files.url('/c.png')})`,
      cover_url: files.url('/a.png'),
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body).not.toHaveProperty('rehost_failed');
    expect(files.hits['/a.png']).toBe(before.a);
    expect(files.hits['/c.png']).toBe(before.c + 1);
    const srcs = imgSrcs((await getPost(token, created.body.id)).body.html);
    expect(srcs[0]).toBe(firstSrc);
    expect(srcs[1]).toMatch(/^\/api\/media\//);
    expect(added.body.cover_url).toBe(firstSrc);
    expect(added.body.cover_width).toBe(21);
    const cSize = Number(
      (await db.query('SELECT byte_size FROM media WHERE id = $1', [srcs[1]!.slice('/api/media/'.length)])).rows[0]
        .byte_size,
    );
    expect(await usedToday(token)).toBe(used + cSize);
    expect(await countMediaRows(accountId)).toBe(2);
  });

  it('a URL that failed is tried again by the next write that sends it, never by a title-only PATCH', async () => {
    const { token } = await newAccount();
    const url = files.url('/appears-later.png');
    const created = await api('POST', '/posts', { token, json: { title: 'Retry', markdown: `![late](${url})` } });
    expect(created.status).toBe(201);
    expect(created.body.rehost_failed).toEqual([url]);
    expect(files.hits['/appears-later.png']).toBe(1);

    files.routes['/appears-later.png'] = files.routes['/later.png']!;
    const titleOnly = await patch(token, created.body.id, { title: 'Retry later' });
    expect(titleOnly.status).toBe(200);
    expect(titleOnly.body).not.toHaveProperty('rehost_failed');
    expect(files.hits['/appears-later.png']).toBe(1);
    expect(imgSrcs((await getPost(token, created.body.id)).body.html)).toEqual([url]);

    const resent = await patch(token, created.body.id, { markdown: `![late](${url})\n\nNow it is there.` });
    expect(resent.status).toBe(200);
    expect(resent.body).not.toHaveProperty('rehost_failed');
    expect(files.hits['/appears-later.png']).toBe(2);
    expect(imgSrcs((await getPost(token, created.body.id)).body.html)[0]).toMatch(/^\/api\/media\//);
  });

  it('a stored image stays local when its source is gone and the daily quota has run out; only a new image fails', async () => {
    const { token, handle } = await newAccount();
    const gone = files.url('/gone.png');
    files.routes['/gone.png'] = files.routes['/a.png']!;
    const created = await api('POST', '/posts', {
      token,
      json: { title: 'Kept', markdown: `![G](${gone})`, cover_url: gone },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).not.toHaveProperty('rehost_failed');
    const [storedSrc] = imgSrcs((await getPost(token, created.body.id)).body.html);
    expect(storedSrc).toMatch(/^\/api\/media\//);
    expect(created.body.cover_url).toBe(storedSrc);

    // The source disappears and the day's quota is spent: nothing new can be stored today.
    delete files.routes['/gone.png'];
    const used = await usedToday(token);
    const update = await cli(serviceEnv(), ['account', 'update', handle, '--limit', `daily_media_bytes=${used}`]);
    expect(update.code, update.stderr).toBe(0);
    const goneHits = files.hits['/gone.png'];

    const fresh = files.url('/b.png');
    const res = await patch(token, created.body.id, {
      title: 'Kept, edited',
      markdown: `Edited.\n\n![G](${gone})\n\n![B](${fresh})`,
      cover_url: gone,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.rehost_failed).toEqual([fresh]);
    expect(res.body.cover_url).toBe(storedSrc);
    expect(files.hits['/gone.png']).toBe(goneHits);
    expect(imgSrcs((await getPost(token, created.body.id)).body.html)).toEqual([storedSrc, fresh]);
    expect(await usedToday(token)).toBe(used);
  });

  it('rehost_failed names each URL as the author wrote it', async () => {
    const { token } = await newAccount();
    const port = files.port;
    // Protocol-relative means https, which this plain-http server cannot answer.
    const relative = `//127.0.0.1:${port}/a.png`;
    const created = await api('POST', '/posts', {
      token,
      json: { title: 'Spelling', markdown: `![r](${relative})\n\n![x](http://127.0.0.1:${port}/missing%20file.png)` },
    });
    expect(created.status).toBe(201);
    expect(created.body.rehost_failed).toEqual([relative, `http://127.0.0.1:${port}/missing%20file.png`]);
  });
});

describe('a refused write costs nothing but its write request', () => {
  it('409 for a taken slug, 400 for a missing cover or an empty document, 412 for a stale version: no download, no charge', async () => {
    const { token, id: accountId } = await newAccount();
    const taken = await createPost(token, { slug: 'taken-slug' });
    const other = await createPost(token, { slug: 'other-slug' });
    const image = `![x](${files.url('/refused.png')})`;
    const used = await usedToday(token);
    const rows = await countMediaRows(accountId);
    const hits = files.hits['/refused.png'] ?? 0;

    const refusals: [number, Awaited<ReturnType<typeof api>>][] = [
      [
        409,
        await api('POST', '/posts', {
          token,
          json: { title: 'T', markdown: image, slug: 'taken-slug', cover_url: files.url('/refused.png') },
        }),
      ],
      [409, await patch(token, other.id, { slug: 'taken-slug', markdown: image })],
      [
        400,
        await api('POST', '/posts', {
          token,
          json: { title: 'T', markdown: image, cover_asset_id: '11111111-1111-1111-1111-111111111111' },
        }),
      ],
      [
        400,
        await patch(token, other.id, { markdown: image, cover_url: '/api/media/11111111-1111-1111-1111-111111111111' }),
      ],
      [
        400,
        await patch(token, other.id, {
          markdown: '<video src="https://e.com/v.mp4"></video>',
          cover_url: files.url('/refused.png'),
        }),
      ],
      [412, await patch(token, other.id, { markdown: image }, { 'if-match': '"stale"' })],
    ];
    for (const [status, res] of refusals) expect(res.status, res.text).toBe(status);
    expect(files.hits['/refused.png'] ?? 0).toBe(hits);
    expect(await usedToday(token)).toBe(used);
    expect(await countMediaRows(accountId)).toBe(rows);
    expect((await getPost(token, taken.id)).body.slug).toBe('taken-slug');
    expect((await getPost(token, other.id)).body.html).not.toContain('<img');
  });
});

describe('IPv6 literal image URLs', () => {
  it('are kept external and reported as written when their address is not allowed', async () => {
    const { token } = await newAccount();
    const markdown = '![a](http://[::1]:9/x.png)\n\n![c](http://[2001:db8::1]/z.png)';
    const res = await api('POST', '/posts', { token, json: { title: 'IPv6', markdown } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.rehost_failed).toEqual(['http://[::1]:9/x.png', 'http://[2001:db8::1]/z.png']);
    const html = (await getPost(token, res.body.id)).body.html as string;
    expect(imgSrcs(html)).toEqual(['http://[::1]:9/x.png', 'http://[2001:db8::1]/z.png']);
    expect(html).toContain('alt="a"');
  });

  describe('where ::1 is an allowed address', () => {
    let v6: Server;
    let instance: ExtraService;
    let v6Hits = 0;
    beforeAll(async () => {
      const png = await solidPng(12, 9);
      v6 = createServer((req, res) => {
        v6Hits++;
        if (req.url !== '/v6.png') return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
      });
      await new Promise<void>((resolve, reject) => v6.once('error', reject).listen(0, '::1', resolve));
      instance = await startExtraService({ ...API_ONLY, ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8,::1/128' });
    });
    afterAll(async () => {
      await instance?.stop();
      await new Promise<void>((resolve) => (v6 ? v6.close(() => resolve()) : resolve()));
    });

    it('rehosts them like any other URL', async () => {
      const { token } = await newAccount();
      const url = `http://[::1]:${(v6.address() as AddressInfo).port}/v6.png`;
      const res = await instance.call('POST', '/posts', {
        token,
        json: { title: 'IPv6 stored', markdown: `![six](${url})` },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).not.toHaveProperty('rehost_failed');
      expect(v6Hits).toBe(1);
      const html = (await instance.call('GET', `/posts/${res.body.id}`, { token })).body.html as string;
      expect(imgSrcs(html)[0]).toMatch(/^\/api\/media\/[0-9a-f-]{36}$/);
      expect(html).toContain('alt="six"');
    });
  });
});

describe('ids: any 8-4-4-4-12 hex id is a UUID', () => {
  it('answers 404 for an absent one on every article route, and finds an article by its id in capitals', async () => {
    const { token } = await newAccount();
    const absent = '11111111-1111-1111-1111-111111111111';
    for (const [method, path, json] of [
      ['GET', `/posts/${absent}`, undefined],
      ['PATCH', `/posts/${absent}`, { title: 'x' }],
      ['POST', `/posts/${absent}/publish`, undefined],
      ['POST', `/posts/${absent}/unpublish`, undefined],
      ['DELETE', `/posts/${absent}`, undefined],
    ] as const) {
      const res = await api(method, path, { token, json });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String), code: 'not_found' });
    }
    const post = await createPost(token);
    expect((await getPost(token, post.id.toUpperCase())).body.id).toBe(post.id);
    const cover = await patch(token, post.id, { cover_asset_id: absent });
    expect(cover.status).toBe(400);
    expect(cover.body.error).toMatch(/^cover_asset_id: no image/);
  });
});

describe('a local cover_url', () => {
  it('sets the cover without a rehost: nothing charged, nothing reported', async () => {
    const { token } = await newAccount({ limits: { media_per_min: 1 } });
    const upload = await api('POST', '/media', { token, body: mediaForm(await solidPng(40, 30)) });
    expect(upload.status).toBe(200);
    const used = await usedToday(token);
    const post = await createPost(token, { cover_url: upload.body.url });
    expect(post).toMatchObject({
      cover_asset_id: upload.body.id,
      cover_url: upload.body.url,
      cover_width: 40,
      cover_height: 30,
    });
    expect(post).not.toHaveProperty('rehost_failed');
    expect(post).not.toHaveProperty('warnings');
    const patched = await patch(token, post.id, { cover_url: upload.body.url, title: 'Same cover' });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('rehost_failed');
    expect(patched.body).not.toHaveProperty('warnings');
    expect(await usedToday(token)).toBe(used);
  });
});

describe('publishing what is already published', () => {
  it('answers 200 with the article unchanged', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const first = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(first.body.status).toBe('published');
    const again = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it("does not send a moderated account's published article back to moderation", async () => {
    const { token } = await newAccount({ moderated: true });
    const post = await createPost(token);
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).body.status).toBe('pending_moderation');
    expect((await cli(serviceEnv(), ['moderation', 'approve', post.id])).code).toBe(0);
    const approved = (await getPost(token, post.id)).body;
    const again = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(withoutHtml(approved));
  });
});

describe('body conversion over HTTP', () => {
  it('lifts an allowed iframe out of its paragraph; a body of only a src-less video is empty', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, {
      markdown: 'see <iframe src="https://codepen.io/team/embed/abc"></iframe> here',
    });
    expect((await getPost(token, post.id)).body.html).toContain(
      '<p>see</p>\n<div class="dp-embed" data-dp-embed=""><iframe src="https://codepen.io/team/embed/abc" sandbox="allow-scripts allow-same-origin allow-popups allow-presentation" referrerpolicy="strict-origin-when-cross-origin"></iframe></div>\n<p>here</p>',
    );
    const video = await api('POST', '/posts', {
      token,
      json: { title: 'Video', markdown: '<video src="https://e.com/a.mp4"></video>' },
    });
    expect(video.status).toBe(400);
    expect(video.body).toEqual({ error: 'markdown: document is empty after conversion' });
  });
});

/** `content_parsed_characters_total{source="reused"}` of the shared test service. */
async function reusedCharacters(): Promise<number> {
  const text = await (await metricsOf(baseUrl())).text();
  return Number(/^content_parsed_characters_total\{source="reused"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('edits reuse the blocks their account parsed before', () => {
  it('every edit of a long article stores the html of its whole Markdown converted afresh', async () => {
    const { token } = await newAccount();
    const blocks = [
      '## One',
      'First paragraph with *emphasis* and www.example.com.',
      '- a list\n- of two',
      '> A quote\nover two lines.',
      '```js\nconst a = 1;\n\nconst b = 2;\n```',
      '| a | b |\n| - | - |\n| 1 | 2 |',
      'Last paragraph.',
    ];
    const post = await createPost(token, { title: 'Blocks', markdown: blocks.join('\n\n') });
    const reusedBefore = await reusedCharacters();
    const edits: ((b: string[]) => string[])[] = [
      (b) => [...b, 'An added paragraph.'],
      (b) => b.map((x, i) => (i === 1 ? 'First paragraph, edited.' : x)),
      (b) => [b[0]!, 'A paragraph before the others.', ...b.slice(1)],
      (b) => b.filter((_, i) => i !== 3),
      // Joining two blocks: the list now continues over the blank line.
      (b) => b.map((x, i) => (i === 3 ? '- a third item' : x)),
      (b) => [...b.slice(0, 2), '[ref]: https://example.com/ref', 'A [ref] link.', ...b.slice(2)],
    ];
    let current = blocks;
    for (const [n, edit] of edits.entries()) {
      current = edit(current);
      const markdown = current.join('\n\n');
      const res = await patch(token, post.id, { markdown });
      expect(res.status, `edit ${n}`).toBe(200);
      const expected = renderArticleSync({ markdown, title: 'Blocks' }).html;
      expect((await getPost(token, post.id)).body.html, `edit ${n}`).toBe(expected);
      expect((await stored(post.id)).html, `edit ${n}`).toBe(expected);
    }
    // The first edit alone left every block before the added paragraph as it was (other tests
    // converting meanwhile can only add to the count).
    expect((await reusedCharacters()) - reusedBefore).toBeGreaterThanOrEqual(
      blocks.join('\n\n').length - 'Last paragraph.'.length,
    );
  });
});

describe('conditional requests', () => {
  it('GET and every write answer with the ETag of the current version', async () => {
    const { token } = await newAccount();
    const created = await api('POST', '/posts', { token, json: { title: 'Tagged', markdown: 'x' } });
    const etag = created.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const got = await getPost(token, created.body.id);
    expect(got.headers.get('etag')).toBe(etag);
    const patched = await patch(token, created.body.id, { title: 'Tagged again' });
    expect(patched.headers.get('etag')).not.toBe(etag);
    expect((await getPost(token, created.body.id)).headers.get('etag')).toBe(patched.headers.get('etag'));
    const published = await api('POST', `/posts/${created.body.id}/publish`, { token });
    expect(published.headers.get('etag')).not.toBe(patched.headers.get('etag'));
    expect((await getPost(token, created.body.id)).headers.get('etag')).toBe(published.headers.get('etag'));
    const unpublished = await api('POST', `/posts/${created.body.id}/unpublish`, { token });
    expect(unpublished.status).toBe(204);
    expect(unpublished.headers.get('etag')).toBe((await getPost(token, created.body.id)).headers.get('etag'));
  });

  it('If-None-Match on GET /posts/{id}: 304 without a body when current, 200 otherwise', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const etag = (await getPost(token, post.id)).headers.get('etag')!;
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await getPost(token, post.id, { 'if-none-match': value });
      expect(res.status, value).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
    }
    const stale = await getPost(token, post.id, { 'if-none-match': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.body.html).toBeTruthy();
    await patch(token, post.id, { title: 'Changed' });
    expect((await getPost(token, post.id, { 'if-none-match': etag })).status).toBe(200);
    expect((await getPost(token, '11111111-1111-1111-1111-111111111111', { 'if-none-match': '*' })).status).toBe(404);
  });

  it('parallel writes sending one If-Match: exactly one applies, every other one is 412', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Contended', markdown: 'v1' });
    const etag = (await getPost(token, post.id)).headers.get('etag')!;
    const titles = Array.from({ length: 10 }, (_, i) => `Contender ${i}`);
    const responses = await Promise.all(titles.map((title) => patch(token, post.id, { title }, { 'if-match': etag })));
    const applied = responses.filter((r) => r.status === 200);
    expect(applied).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status, r.text).toBe(412);
      expect(r.body.code).toBe('precondition_failed');
    }
    const final = await getPost(token, post.id);
    expect(final.body.title).toBe(applied[0]!.body.title);
    expect(final.headers.get('etag')).toBe(applied[0]!.headers.get('etag'));
  });

  it('If-Match on PATCH, publish, unpublish and DELETE: a stale tag is 412 and changes nothing; the current one (or *) goes ahead', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Guarded', markdown: 'v1' });
    let etag = (await getPost(token, post.id)).headers.get('etag')!;
    const stale = '"stale-version"';
    const expectRefused = async (res: Awaited<ReturnType<typeof api>>) => {
      expect(res.status, res.text).toBe(412);
      expect(res.body).toEqual({ error: expect.stringMatching(/^If-Match: /), code: 'precondition_failed' });
      const now = await getPost(token, post.id);
      expect(now.headers.get('etag')).toBe(etag);
      return now.body;
    };

    expect(
      (await expectRefused(await patch(token, post.id, { title: 'Lost update' }, { 'if-match': stale }))).title,
    ).toBe('Guarded');
    expect(
      await expectRefused(await patch(token, post.id, { title: 'Weak' }, { 'if-match': `W/${etag}` })),
    ).toMatchObject({ title: 'Guarded' });
    const ok = await patch(token, post.id, { title: 'Guarded v2' }, { 'if-match': etag });
    expect(ok.status).toBe(200);
    expect(ok.body.title).toBe('Guarded v2');
    // The tag from before the change is stale now: a second client holding it is refused.
    const before = etag;
    etag = ok.headers.get('etag')!;
    expect(
      (await expectRefused(await patch(token, post.id, { title: 'Overwrite' }, { 'if-match': before }))).title,
    ).toBe('Guarded v2');
    expect((await patch(token, post.id, { subtitle: 'any version' }, { 'if-match': '*' })).status).toBe(200);
    etag = (await getPost(token, post.id)).headers.get('etag')!;
    expect((await patch(token, post.id, { subtitle: 'no header' })).status).toBe(200);
    etag = (await getPost(token, post.id)).headers.get('etag')!;

    expect(
      (await expectRefused(await api('POST', `/posts/${post.id}/publish`, { token, headers: { 'if-match': stale } })))
        .status,
    ).toBe('draft');
    const published = await api('POST', `/posts/${post.id}/publish`, { token, headers: { 'if-match': etag } });
    expect(published.status).toBe(200);
    etag = published.headers.get('etag')!;
    expect(
      (await expectRefused(await api('POST', `/posts/${post.id}/unpublish`, { token, headers: { 'if-match': stale } })))
        .status,
    ).toBe('published');
    const unpublished = await api('POST', `/posts/${post.id}/unpublish`, { token, headers: { 'if-match': etag } });
    expect(unpublished.status).toBe(204);
    etag = unpublished.headers.get('etag')!;
    await expectRefused(await api('DELETE', `/posts/${post.id}`, { token, headers: { 'if-match': stale } }));
    expect((await api('DELETE', `/posts/${post.id}`, { token, headers: { 'if-match': etag } })).status).toBe(204);
    expect((await getPost(token, post.id)).status).toBe(404);
    // An absent article is a 404 whatever If-Match says.
    expect((await patch(token, post.id, { title: 'x' }, { 'if-match': '*' })).status).toBe(404);
  });
});

describe('REST failures', () => {
  it('a write with a wrong token gets 401 before its body is read', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const url = new URL(`${baseUrl()}/api/v1/author/posts/${post.id}`);
    // Announce 8 MiB, send a few bytes and wait: the answer must come without the rest.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'PATCH',
          headers: {
            authorization: `Bearer ${token}x`,
            'content-type': 'application/json',
            'content-length': String(8 * 1024 * 1024),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            resolve({ status: res.statusCode!, body });
            req.destroy();
          });
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.write('{"title":');
      setTimeout(() => reject(new Error('no answer before the body was complete')), 10_000).unref();
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: expect.any(String) });
    expect((await getPost(token, post.id)).body.title).toBe(post.title);
  });

  it('an input that fails its schema is a 400 naming the field; a response that fails its own schema is a 500', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const input = await patch(token, post.id, { title: 5 });
    expect(input.status).toBe(400);
    expect(input.body).toEqual({ error: expect.stringMatching(/^title: /) });

    // A row the output schema cannot describe (a tag whose slug is a number): our fault, not the caller's.
    await db.query(`UPDATE posts SET tags = '[{"slug": 5, "name": "five"}]'::jsonb WHERE id = $1`, [post.id]);
    // Plain fetch: the document declares no 500 (no route is meant to answer one), so the
    // conformance check of `api` would refuse the very answer this test wants to see.
    for (const path of [`/posts/${post.id}`, '/posts']) {
      const res = await fetch(`${baseUrl()}/api/v1/author${path}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      expect(res.status, text).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: 'Internal server error' });
    }
  });
});
