/**
 * Reader counters over HTTP: what does not count (an HTML-only client, HEAD, a prefetch, a bot,
 * the console's preview frames, a draft, an id that names nothing), and the operator route
 * `POST /api/reader-events` (404 while disabled, 401, 400 naming the field, idempotent batches,
 * never below 0, popularity).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount } from '../support/api';
import { checkResponse } from '../support/conformance';
import { openConsoleSession } from './console-session';
import { startExtraService, type ExtraService } from './media-helpers';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const TOKEN = 'reader-events-token-for-tests';
const SECRET = 'reader-counter-test-secret-0123456789abcdefghij';

interface Post {
  id: string;
  public_id: string;
  canonical_path: string;
  open_count: number;
  read_count: number;
  complete_count: number;
  like_count: number;
  comment_count: number;
  save_count: number;
  impression_count: number;
  popularity: number;
}

async function publishedArticle(token: string): Promise<Post> {
  const post = (await createPost(token)) as Post;
  const published = await api<Post>('POST', `/posts/${post.id}/publish`, { token });
  expect(published.status).toBe(200);
  return published.body;
}

const read = async (token: string, id: string) => (await api<Post>('GET', `/posts/${id}`, { token })).body;
const beacon = (base: string, publicId: string, kind: string, init: RequestInit = {}) =>
  fetch(`${base}/api/reader/${publicId}/${kind}.gif`, { ...init, headers: { 'user-agent': BROWSER, ...init.headers } });
/** Longer than one flush interval (5 s): a beacon that was going to count has counted by then. */
const oneFlushLater = () => new Promise((r) => setTimeout(r, 6_500));

describe('what a public page view does not count', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({ SESSION_SECRET: SECRET });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  it('an HTML-only client, HEAD, prefetch, a bot, the console preview, a draft or a made-up id count nothing; a browser counts', async () => {
    const account = await newAccount();
    const post = await publishedArticle(account.token);
    const draft = (await createPost(account.token)) as Post;
    const page = `${baseUrl()}${post.canonical_path}`;

    const html = await fetch(page, { headers: { 'user-agent': 'curl/8.5.0' } });
    expect(html.status).toBe(200);
    expect(await html.text()).toContain(`/api/reader/${post.public_id}/open.gif`);
    expect((await fetch(page, { method: 'HEAD', headers: { 'user-agent': BROWSER } })).status).toBe(200);
    // The beacons themselves, as clients that are not readers send them: all answered alike.
    const refusals = [
      beacon(baseUrl(), post.public_id, 'open', { method: 'HEAD' }),
      beacon(baseUrl(), post.public_id, 'open', { headers: { 'sec-purpose': 'prefetch' } }),
      beacon(baseUrl(), post.public_id, 'read', { headers: { purpose: 'prefetch' } }),
      beacon(baseUrl(), post.public_id, 'open', { headers: { 'sec-purpose': 'prefetch;prerender' } }),
      beacon(baseUrl(), post.public_id, 'open', {
        headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
      }),
      beacon(baseUrl(), post.public_id, 'complete', { headers: { 'user-agent': 'facebookexternalhit/1.1' } }),
      beacon(baseUrl(), post.public_id, 'open', { headers: { 'sec-fetch-dest': 'document' } }),
      beacon(baseUrl(), draft.public_id, 'open'),
      beacon(baseUrl(), 'zzzzzzzzzz', 'open'),
    ];
    for (const res of await Promise.all(refusals)) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-type')).toBe('image/gif');
    }
    // The console's preview of the published version renders the article without beacons.
    const session = await openConsoleSession(SECRET, account.id);
    const preview = await fetch(`${extra.service.baseUrl}/console/preview/${post.id}?version=published`, {
      headers: { cookie: session.cookie, 'user-agent': BROWSER },
    });
    expect(preview.status).toBe(200);
    const previewHtml = await preview.text();
    expect(previewHtml).toContain('<article');
    expect(previewHtml).not.toContain('/api/reader/');

    await oneFlushLater();
    for (const p of [await read(account.token, post.id), await read(account.token, draft.id)]) {
      expect([p.open_count, p.read_count, p.complete_count]).toEqual([0, 0, 0]);
    }

    // The control: the same beacon from a browser counts, within 10 s.
    const counted = await beacon(baseUrl(), post.public_id, 'open', { headers: { 'sec-fetch-dest': 'image' } });
    expect(counted.status).toBe(200);
    expect((await counted.arrayBuffer()).byteLength).toBeLessThan(64);
    await expect.poll(async () => (await read(account.token, post.id)).open_count, { timeout: 10_000 }).toBe(1);
  });

  it('answers a malformed beacon path 404', async () => {
    for (const path of [
      '/api/reader/short/open.gif',
      '/api/reader/abcdefghij/like.gif',
      '/api/reader/ABCDEFGHIJ/open.gif',
    ]) {
      const res = await fetch(`${baseUrl()}${path}`, { headers: { 'user-agent': BROWSER } });
      expect(res.status, path).toBe(404);
    }
  });
});

describe('POST /api/reader-events', () => {
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({ READER_EVENTS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  const send = (body: unknown, token: string | null = TOKEN, base = extra.service.baseUrl) =>
    fetch(`${base}/api/reader-events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (r) => {
      const text = await r.text();
      // Every answer, refusals included, as the OpenAPI document declares it.
      await checkResponse(
        { method: 'POST', path: '/api/reader-events', status: r.status, headers: r.headers, text },
        base,
      );
      return { status: r.status, body: JSON.parse(text) as any };
    });

  it('is absent (404) on an instance without READER_EVENTS_TOKEN', async () => {
    const res = await send({ batch_id: 'x', events: [] }, TOKEN, baseUrl());
    expect(res).toEqual({ status: 404, body: { error: 'Not found', code: 'not_found' } });
  });

  it('refuses a missing or wrong token (401)', async () => {
    for (const token of [null, 'reader-events-token-for-testz', 'short']) {
      const res = await send({ batch_id: 'x', events: [] }, token);
      expect(res.status, String(token)).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('refuses a malformed body with 400 naming the field', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const cases: [unknown, string][] = [
      ['{not json', 'body'],
      [{ events: [] }, 'batch_id'],
      [{ batch_id: '', events: [] }, 'batch_id'],
      [{ batch_id: 'x'.repeat(101), events: [] }, 'batch_id'],
      [{ batch_id: 'b' }, 'events'],
      [{ batch_id: 'b', events: Array.from({ length: 1001 }, () => ({ post_id: id, kind: 'like' })) }, 'events'],
      [{ batch_id: 'b', events: [{ post_id: 'nope', kind: 'like' }] }, 'events.0.post_id'],
      [{ batch_id: 'b', events: [{ post_id: id, kind: 'share' }] }, 'events.0.kind'],
      [{ batch_id: 'b', events: [{ post_id: id, kind: 'like', count: 0 }] }, 'events.0.count'],
      [{ batch_id: 'b', events: [{ post_id: id, kind: 'like', count: 1_000_001 }] }, 'events.0.count'],
      [{ batch_id: 'b', events: [{ post_id: id, kind: 'like', count: 1.5 }] }, 'events.0.count'],
      [{ batch_id: 'b', events: [], extra: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}: `));
      expect(res.body.code).toBeUndefined();
    }
  });

  it('applies a batch once, lists unknown and deleted articles, never goes below 0, and moves popularity', async () => {
    const account = await newAccount();
    const post = await publishedArticle(account.token);
    const deleted = await publishedArticle(account.token);
    expect((await api('DELETE', `/posts/${deleted.id}`, { token: account.token })).status).toBe(204);
    const unknown = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const batch = {
      batch_id: `first-${post.id}`,
      events: [
        { post_id: post.id, kind: 'impression', count: 250 },
        { post_id: post.id, kind: 'like', count: 3 },
        { post_id: post.id, kind: 'comment' },
        { post_id: post.id, kind: 'save', count: 2 },
        { post_id: post.id, kind: 'open', count: 4 },
        { post_id: post.id, kind: 'read', count: 2 },
        { post_id: post.id, kind: 'complete' },
        { post_id: unknown, kind: 'like' },
        { post_id: deleted.id, kind: 'like' },
      ],
    };
    const first = await send(batch);
    expect(first.status).toBe(200);
    expect(first.body.applied).toBe(7);
    expect([...first.body.unknown_posts].sort()).toEqual([unknown, deleted.id].sort());
    const after = await read(account.token, post.id);
    expect(after).toMatchObject({
      impression_count: 250,
      like_count: 3,
      comment_count: 1,
      save_count: 2,
      open_count: 4,
      read_count: 2,
      complete_count: 1,
    });
    expect(after.popularity).toBeGreaterThan(0);

    // Replayed: the same answer, nothing applied again.
    expect(await send(batch)).toEqual(first);
    expect(await read(account.token, post.id)).toMatchObject({ like_count: 3, impression_count: 250 });

    // More likes: popularity rises. Taking more than there is stops at 0.
    const more = await send({ batch_id: `more-${post.id}`, events: [{ post_id: post.id, kind: 'like', count: 50 }] });
    expect(more.body).toEqual({ applied: 1, unknown_posts: [] });
    const liked = await read(account.token, post.id);
    expect(liked.popularity).toBeGreaterThan(after.popularity);
    const undo = await send({
      batch_id: `undo-${post.id}`,
      events: [
        { post_id: post.id, kind: 'unlike', count: 1000 },
        { post_id: post.id, kind: 'uncomment', count: 5 },
        { post_id: post.id, kind: 'unsave', count: 5 },
      ],
    });
    expect(undo.status).toBe(200);
    const undone = await read(account.token, post.id);
    expect([undone.like_count, undone.comment_count, undone.save_count]).toEqual([0, 0, 0]);
    expect(undone.popularity).toBeLessThan(liked.popularity);
    expect(undone.popularity).toBeGreaterThanOrEqual(0);
  });
});
