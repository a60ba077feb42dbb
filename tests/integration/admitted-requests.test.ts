import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { startWireTap, type WireTap } from '../support/pg-wire-tap';
import { createAccountFixture } from '../support/shared-database';
import { API_ONLY, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * Authenticated requests in the fewest round trips, seen on the wire between the service and
 * PostgreSQL: a read's token check, rate charge and read are one statement
 * (server/data/admitted-reads.ts `admittedStatement`); a write with a small body is admitted in
 * one statement before its own (server/http/rest-api.ts). The answers still tell 401, 400, 404,
 * 429 and 503 apart as before. Its own cluster, reached through a relay that reads the protocol.
 */
describe('admitted requests', () => {
  const dataDir = tempDataDir('publishing-admitted-');
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  let tap: WireTap;
  let service: RunningService;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
    tap = await startWireTap(pg.url);
    service = await startService({ ...API_ONLY, DATA_DIR: dataDir, DATABASE_URL: tap.url, LOG_LEVEL: 'silent' });
  });
  afterAll(async () => {
    await service?.stop();
    await tap?.close();
    await pg?.stop();
    removeDataDir(dataDir);
  });

  async function account(limits: Record<string, number> = {}): Promise<string> {
    const handle = `admitted-${randomUUID().slice(0, 8)}`;
    const created = await createAccountFixture(
      { handle, limits: { read_per_min: 10000, write_per_min: 10000, ...limits } },
      pg.url,
    );
    return created.token;
  }

  const call = async (token: string, method: string, route: string, json?: unknown) => {
    const res = await fetch(`${service.baseUrl}/api/v1/author${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
  };

  /**
   * Statements of the timers (reader counts, window sweep, scheduled publishing), and the token's
   * once-a-minute `last_used_at`, sent after the answer: not on a request's path.
   */
  const BACKGROUND = /^(reader_|windows_sweep$|touch_token$|publish_schedule_)/;

  it('binds one statement per authenticated read: GET /me, GET /posts/{id}, GET /posts and its next page', async () => {
    const token = await account();
    for (let i = 0; i < 3; i++)
      expect((await call(token, 'POST', '/posts', { title: `Read ${i}`, markdown: 'Text.' })).status).toBe(201);
    const first = await call(token, 'GET', '/posts?limit=2');
    expect(first.status).toBe(200);
    const id = first.body.items[0].id as string;
    const cursor = encodeURIComponent(first.body.next_cursor as string);
    const routes: [string, string][] = [
      ['/me', 'admitted_media_bytes_today'],
      [`/posts/${id}`, 'admitted_post_by_id'],
      ['/posts?limit=2', 'admitted_posts_page_first'],
      [`/posts?limit=2&cursor=${cursor}`, 'admitted_posts_page_after'],
      ['/posts?status=draft', 'admitted_posts_page_status_first'],
    ];
    for (const [route, statement] of routes) {
      tap.reset();
      for (let i = 0; i < 5; i++) expect((await call(token, 'GET', route)).status, route).toBe(200);
      const own = tap.binds.filter((name) => !BACKGROUND.test(name));
      expect(own, route).toEqual(Array(5).fill(statement));
    }
  });

  it('still answers a bad token 401 before a bad input, and charges a refused input one unit', async () => {
    const token = await account();
    const dead = `dp_live_${'x'.repeat(43)}`;
    const post = (await call(token, 'POST', '/posts', { title: 'Mine', markdown: 'Text.' })).body;
    const page = await call(token, 'GET', '/posts?limit=1');
    expect((await call(token, 'POST', '/posts', { title: 'Two', markdown: 'Text.' })).status).toBe(201);
    const cursor = (await call(token, 'GET', '/posts?limit=1')).body.next_cursor as string;
    // Shaped like a cursor, signed for no one: only the signature check can refuse it.
    const forged = `${cursor.split('.')[0]}.${'A'.repeat(22)}`;
    const bad = ['/posts/not-a-uuid', '/posts?status=bogus', '/posts?cursor=garbage', `/posts?cursor=${forged}`];
    for (const route of bad) {
      const refused = await call(dead, 'GET', route);
      expect(refused.status, route).toBe(401);
      expect(refused.body.code, route).toBe('unauthorized');
    }
    let remaining = Number(page.headers.get('ratelimit-remaining'));
    for (const route of bad) {
      const refused = await call(token, 'GET', route);
      expect(refused.status, route).toBe(400);
      const now = Number(refused.headers.get('ratelimit-remaining'));
      expect(now, route).toBeLessThan(remaining);
      remaining = now;
    }
    expect((await call(token, 'GET', `/posts/${post.id}`)).status).toBe(200);
    // Another author's article is absent to this one.
    expect((await call(await account(), 'GET', `/posts/${post.id}`)).status).toBe(404);
  });

  it('answers 429, not 404 or 200, once the read window is used up, with the window in its headers', async () => {
    const token = await account({ read_per_min: 3 });
    const post = (await call(token, 'POST', '/posts', { title: 'Limited', markdown: 'Text.' })).body;
    // Stay inside one fixed window.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 10) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const answers = [];
    for (const route of [
      `/posts/${post.id}`,
      `/posts/${randomUUID()}`,
      '/me',
      `/posts/${randomUUID()}`,
      '/posts',
      '/me',
    ])
      answers.push(await call(token, 'GET', route));
    expect(answers.map((a) => a.status)).toEqual([200, 404, 200, 429, 429, 429]);
    for (const refused of answers.slice(3)) {
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('ratelimit-limit')).toBe('3');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(answers[0]!.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('admits a write with a small body in its first statement: POST and PATCH are 2 round trips; a larger body is identified first', async () => {
    const token = await account();
    const binds = async (method: string, route: string, json: unknown) => {
      tap.reset();
      const answer = await call(token, method, route, json);
      return { status: answer.status, body: answer.body, binds: tap.binds.filter((n) => !BACKGROUND.test(n)) };
    };
    const created = await binds('POST', '/posts', { title: 'Small', markdown: 'A short article.', tags: ['one'] });
    expect(created.status).toBe(201);
    expect(created.binds).toEqual(['authenticate_and_charge', 'post_write_insert']);
    const edited = await binds('PATCH', `/posts/${created.body.id}`, { markdown: 'A short article, edited.' });
    expect(edited.status).toBe(200);
    expect(edited.binds).toEqual(['admitted_post_write_read', 'post_write_update']);
    // Over 64 KiB of body: the token is checked before the body is received, then charged.
    const large = 'Words of a long article. '.repeat(3000);
    const bigCreate = await binds('POST', '/posts', { title: 'Large', markdown: large });
    expect(bigCreate.status).toBe(201);
    expect(bigCreate.binds).toEqual(['authenticate', 'charge_window', 'post_write_insert']);
    const bigEdit = await binds('PATCH', `/posts/${bigCreate.body.id}`, { markdown: `${large} More.` });
    expect(bigEdit.status).toBe(200);
    expect(bigEdit.binds).toEqual(['authenticate', 'admitted_post_write_read', 'post_write_update']);
  });

  it('a small write refused before its route is not charged, and a bad token still wins over a bad body', async () => {
    const token = await account({ write_per_min: 5 });
    const dead = `dp_live_${'x'.repeat(43)}`;
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 10) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const raw = (secret: string, body: string, type = 'application/json') =>
      fetch(`${service.baseUrl}/api/v1/author/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': type },
        body,
      });
    const refusedBodies: [string, string][] = [
      ['{"title": "x", ', 'application/json'],
      ['[1, 2]', 'application/json'],
      ['title=x', 'application/x-www-form-urlencoded'],
    ];
    for (const [body, type] of refusedBodies) {
      const bad = await raw(dead, body, type);
      expect(bad.status, body).toBe(401);
      const refused = await raw(token, body, type);
      expect(refused.status, body).toBe(400);
      expect(refused.headers.get('ratelimit-remaining'), body).toBeNull();
    }
    const first = await call(token, 'POST', '/posts', { title: 'Counted', markdown: 'Text.' });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    // A field the route refuses reaches the route: charged.
    const invalidField = await call(token, 'POST', '/posts', { title: '', markdown: 'Text.' });
    expect(invalidField.status).toBe(400);
    expect(invalidField.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('a PATCH admitted by its read still answers 404 and 429 apart, charged, and changes nothing refused', async () => {
    const token = await account({ write_per_min: 3 });
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 10) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const post = (await call(token, 'POST', '/posts', { title: 'Edited', markdown: 'Text.' })).body;
    const answers = [
      await call(token, 'PATCH', `/posts/${randomUUID()}`, { title: 'Nobody' }),
      await call(await account(), 'PATCH', `/posts/${post.id}`, { title: 'Not mine' }),
      await call(token, 'PATCH', `/posts/${randomUUID()}`, { title: 'Nobody either' }),
      await call(token, 'PATCH', `/posts/${post.id}`, { title: 'Too many' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 429]);
    expect(answers[0]!.headers.get('ratelimit-remaining')).toBe('1');
    expect(answers[2]!.headers.get('ratelimit-remaining')).toBe('0');
    expect(answers[3]!.body.code).toBe('rate_limited');
    expect(answers[3]!.headers.get('ratelimit-remaining')).toBe('0');
    expect((await call(token, 'GET', `/posts/${post.id}`)).body.title).toBe('Edited');
  });

  /** Waits until `n` statements other than the background ones have been bound. */
  async function bound(n: number): Promise<string[]> {
    for (let i = 0; i < 200; i++) {
      const own = tap.binds.filter((name) => !BACKGROUND.test(name));
      if (own.length >= n) return own;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`only ${tap.binds.length} statements bound`);
  }

  /**
   * Sends `first`, holds its statement's answer until the others have reached the service, then
   * lets it go: the others were waiting behind it, so they go out together.
   */
  async function behindOne<T>(first: () => Promise<T>, others: (() => Promise<T>)[]): Promise<T[]> {
    tap.reset();
    const release = tap.holdAnswers();
    const answers = [first()];
    try {
      await bound(1);
      answers.push(...others.map((send) => send()));
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      release();
    }
    return Promise.all(answers);
  }

  it('admits the concurrent reads of one token in batches, one statement each, and gives each request its own answer', async () => {
    const token = await account();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await call(token, 'POST', '/posts', { title: `Batched ${i}`, markdown: `Text ${i}.` })).body.id);
    const elsewhere = (await call(await account(), 'POST', '/posts', { title: 'Not theirs', markdown: 'Text.' })).body
      .id;
    const newestFirst = [...ids].reverse();
    const page = (await call(token, 'GET', '/posts?limit=1')).body;
    const cursor = encodeURIComponent(page.next_cursor as string);
    const byId = [...ids, elsewhere, randomUUID(), ids[0]!, ids[2]!, randomUUID()];
    const answers = await behindOne(
      () => call(token, 'GET', `/posts/${ids[1]}`),
      byId.map((id) => () => call(token, 'GET', `/posts/${id}`)),
    );
    // The first statement, then one for the 8 that waited behind it.
    expect(tap.binds.filter((name) => !BACKGROUND.test(name))).toEqual([
      'admitted_post_by_id',
      'admitted_post_by_id_batch',
    ]);
    expect(answers[0]!.body.id).toBe(ids[1]);
    byId.forEach((id, i) => {
      const answer = answers[i + 1]!;
      if (ids.includes(id)) {
        expect(answer.status, id).toBe(200);
        expect(answer.body.id).toBe(id);
        expect(answer.body.html).toContain(`<p>Text ${ids.indexOf(id)}.</p>`);
      } else expect(answer.status, id).toBe(404);
    });
    // Pages of different sizes and positions in one batch, each cut and continued as if alone.
    const limits = [3, 1, 2, 3];
    const pages = await behindOne(
      () => call(token, 'GET', `/posts?limit=2&cursor=${cursor}`),
      limits.map((limit) => () => call(token, 'GET', `/posts?limit=${limit}&cursor=${cursor}`)),
    );
    expect(tap.binds.filter((name) => !BACKGROUND.test(name))).toEqual([
      'admitted_posts_page_after',
      'admitted_posts_page_after_batch',
    ]);
    const after = newestFirst.slice(1);
    expect(pages[0]!.body.items.map((p: { id: string }) => p.id)).toEqual(after.slice(0, 2));
    limits.forEach((limit, i) => {
      const body = pages[i + 1]!.body;
      expect(body.items.map((p: { id: string }) => p.id)).toEqual(after.slice(0, limit));
      expect(body.next_cursor === null).toBe(limit >= after.length);
    });
  });

  it('admits the concurrent reads of many tokens in one statement, each answered as its own account', async () => {
    const tokens = await Promise.all([account(), account(), account({ read_per_min: 1 }), account()]);
    const own = await Promise.all(
      tokens.map(
        async (t, i) => (await call(t, 'POST', '/posts', { title: `Tenant ${i}`, markdown: `Own ${i}.` })).body,
      ),
    );
    const first = await call(tokens[0]!, 'GET', '/me'); // charges its window, so units below start at 2
    expect(first.status).toBe(200);
    // Every token reads its own article and the next token's: own → 200, foreign → 404.
    const asked = tokens.flatMap((t, i) => [
      { token: t, id: own[i].id as string, owner: i },
      { token: t, id: own[(i + 1) % tokens.length].id as string, owner: (i + 1) % tokens.length },
    ]);
    const answers = await behindOne(
      () => call(tokens[1]!, 'GET', `/posts/${own[1].id}`),
      asked.map((a) => () => call(a.token, 'GET', `/posts/${a.id}`)),
    );
    // The first statement, then one for all eight requests of the four tokens.
    expect(tap.binds.filter((name) => !BACKGROUND.test(name))).toEqual([
      'admitted_post_by_id',
      'admitted_post_by_id_batch',
    ]);
    asked.forEach((a, i) => {
      const answer = answers[i + 1]!;
      const mine = a.owner === tokens.indexOf(a.token);
      if (a.token === tokens[2]) {
        // read_per_min 1: its first request of the batch is unit 1 (200 or 404), its second unit 2 (429).
        expect(answer.status).toBe(mine ? 200 : 429);
        expect(answer.headers.get('ratelimit-limit')).toBe('1');
      } else {
        expect(answer.status).toBe(mine ? 200 : 404);
        if (mine) expect(answer.body.html).toContain(`<p>Own ${a.owner}.</p>`);
        expect(answer.headers.get('ratelimit-limit')).toBe('10000');
      }
    });
  });

  it('numbers a batch in the window as one request after another: exactly the limit answered, the rest 429', async () => {
    const token = await account({ read_per_min: 10 });
    const post = (await call(token, 'POST', '/posts', { title: 'Counted', markdown: 'Text.' })).body;
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 10) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const routes = [`/posts/${post.id}`, `/posts/${randomUUID()}`];
    const answers = await behindOne(
      () => call(token, 'GET', routes[0]!),
      Array.from({ length: 24 }, (_, i) => () => call(token, 'GET', routes[i % 2]!)),
    );
    // The first statement, then batches: one, or more when the requests took longer than the
    // lane's stall time to arrive (a loaded machine), and then a request that arrived alone after
    // a stall goes on the lean statement. Either way far fewer statements than requests.
    const sent = tap.binds.filter((name) => !BACKGROUND.test(name));
    expect(sent[0]).toBe('admitted_post_by_id');
    expect(sent).toContain('admitted_post_by_id_batch');
    expect(sent.length).toBeLessThanOrEqual(12);
    for (const name of sent) expect(['admitted_post_by_id', 'admitted_post_by_id_batch']).toContain(name);
    // Which requests got the 10 units depends on the order they reached the service; each unit
    // went to exactly one of them, the first request (alone) took the first.
    const admitted = answers.filter((a) => a.status !== 429);
    expect(admitted).toHaveLength(10);
    expect(answers[0]!.headers.get('ratelimit-remaining')).toBe('9');
    expect(admitted.map((a) => Number(a.headers.get('ratelimit-remaining'))).sort((x, y) => x - y)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    answers.forEach((a, i) => {
      const own = i === 0 || (i - 1) % 2 === 0;
      if (a.status !== 429) expect(a.status).toBe(own ? 200 : 404);
    });
    const refusedAnswers = answers.filter((a) => a.status === 429);
    expect(refusedAnswers).toHaveLength(15);
    for (const refused of refusedAnswers) {
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
  });
});
