/**
 * Edges of one process that need their own instance (on the shared database): the configured
 * public origin, a connection cap, a stalled JSON body, timers left by health checks, and a
 * saturated prepared-statement pool.
 */
import { API_ONLY, metricsOf } from '../support/service';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount } from '../support/api';
import { mediaForm, solidPng, startExtraService, type ExtraService } from './media-helpers';
import { sharedDatabaseUrl } from '../support/shared-database';

function get(baseUrl: string, target: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: target, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an instance with PUBLIC_ORIGIN, MAX_CONNECTIONS and JSON_BODY_IDLE_TIMEOUT_MS set', () => {
  let extra: ExtraService;
  const PUBLIC_ORIGIN = 'https://blog.example';
  beforeAll(async () => {
    extra = await startExtraService({
      ...API_ONLY,
      PUBLIC_ORIGIN,
      MAX_CONNECTIONS: '6',
      JSON_BODY_IDLE_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  it('closes connections past MAX_CONNECTIONS as they arrive, and serves again once some close', async () => {
    const base = extra.service.baseUrl;
    const { hostname, port } = new URL(base);
    const held: Socket[] = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect(Number(port), hostname, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    await sleep(200);
    await expect(get(base, '/api/health')).rejects.toThrow();
    for (const socket of held) socket.destroy();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      await sleep(100);
      status = await get(base, '/api/health').then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
  });

  it('answers a JSON body that stalls with 400 and closes the connection', async () => {
    const { token } = await newAccount();
    const { hostname, port } = new URL(extra.service.baseUrl);
    const head = [
      'POST /api/v1/author/posts HTTP/1.1',
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${token}`,
      'Content-Type: application/json',
      'Content-Length: 1000',
      '',
      '{"title": "never finished", "markdown": "',
    ].join('\r\n');
    const socket = connect(Number(port), hostname);
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      const guard = setTimeout(() => reject(new Error(`no answer in 10 s: ${received}`)), 10_000);
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('close', () => {
        clearTimeout(guard);
        resolve(received);
      });
      socket.on('error', reject);
      socket.write(head);
    });
    const [headers, body] = answer.split('\r\n\r\n');
    expect(headers).toMatch(/^HTTP\/1\.1 400 /);
    expect(headers!.toLowerCase()).toContain('connection: close');
    const json = JSON.parse(body!.startsWith('{') ? body! : body!.split('\r\n')[1]!) as unknown;
    expect(json).toEqual({ error: expect.stringMatching(/^body: the request body stalled/) });
  }, 30_000);

  it('builds canonical, og:url and og:image from PUBLIC_ORIGIN, whatever Host and X-Forwarded-* say', async () => {
    const { token } = await newAccount();
    const upload = await fetch(`${baseUrl()}/api/v1/author/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: mediaForm(await solidPng(40, 20)),
    });
    expect(upload.status).toBe(200);
    const media = (await upload.json()) as { id: string; url: string };
    const post = await createPost(token, { title: 'Configured origin', cover_asset_id: media.id });
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);

    const page = await get(extra.service.baseUrl, post.canonical_path, {
      host: 'evil.example',
      'x-forwarded-host': 'attacker.example',
      'x-forwarded-proto': 'http',
    });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/attacker\.example|evil\.example/);
    const url = `${PUBLIC_ORIGIN}${post.canonical_path}`;
    expect(page.text).toContain(`<link rel="canonical" href="${url}">`);
    expect(page.text).toContain(`<meta property="og:url" content="${url}">`);
    expect(page.text).toContain(`<meta property="og:image" content="${PUBLIC_ORIGIN}${media.url}">`);
    const plain = await get(extra.service.baseUrl, post.canonical_path);
    expect(plain.text).toBe(page.text);
    expect(plain.headers.etag).toBe(page.headers.etag);
  });

  it('leaves no timer behind a health check', async () => {
    const timers = async () => {
      const text = await (await metricsOf(`${extra.service.baseUrl}`)).text();
      const match = /^nodejs_active_timers (\d+)$/m.exec(text);
      expect(match, 'nodejs_active_timers gauge').not.toBeNull();
      return Number(match![1]);
    };
    const before = await timers();
    for (let i = 0; i < 40; i++) expect((await fetch(`${extra.service.baseUrl}/api/health`)).status).toBe(200);
    // Each check used to leave its 2 s timeout pending: 40 checks, 40 more timers.
    expect((await timers()) - before).toBeLessThan(10);
  });
});

describe('a saturated prepared-statement pool (STATEMENT_POOL_SIZE=1)', () => {
  let extra: ExtraService;
  let db: pg.Client;
  beforeAll(async () => {
    extra = await startExtraService({ ...API_ONLY, STATEMENT_POOL_SIZE: '1' });
    db = new pg.Client({ connectionString: await sharedDatabaseUrl() });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await extra?.stop();
  });

  it('answers 503 service_unavailable while its one connection is held, then serves again', async () => {
    const holder = await newAccount();
    const other = await newAccount();
    const me = (token: string) =>
      fetch(`${extra.service.baseUrl}/api/v1/author/me`, { headers: { authorization: `Bearer ${token}` } });
    // The held request must find its minute window's row (locked below) already there.
    if (new Date().getUTCSeconds() > 45) await sleep((61 - new Date().getUTCSeconds()) * 1000);
    expect((await me(holder.token)).status).toBe(200);

    await db.query('BEGIN');
    await db.query('SELECT 1 FROM rate_windows WHERE account_id = $1 FOR UPDATE', [holder.id]);
    const held = me(holder.token); // waits on the row lock, holding the pool's only connection
    await sleep(300);
    const started = Date.now();
    const refused = await me(other.token);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(10_000);

    await db.query('COMMIT');
    expect((await held).status).toBe(200);
    expect((await me(other.token)).status).toBe(200);
  });

  it('an edit waiting for its article’s row lock holds none of the connections reads need', async () => {
    const author = await newAccount();
    const reader = await newAccount();
    const created = await extra.call('POST', '/posts', {
      token: author.token,
      json: { title: 'Locked', markdown: 'x' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;

    await db.query('BEGIN');
    await db.query('SELECT 1 FROM posts WHERE id = $1 FOR UPDATE', [id]);
    const edit = extra.call('PATCH', `/posts/${id}`, { token: author.token, json: { title: 'Edited meanwhile' } });
    await sleep(1000); // read, converted, and now waiting for the lock
    // With one connection for reads, a read waits its 2 s for it and is 503 if the edit holds it.
    const read = await fetch(`${extra.service.baseUrl}/api/v1/author/me`, {
      headers: { authorization: `Bearer ${reader.token}` },
    });
    expect(read.status).toBe(200);
    await db.query('COMMIT');
    const edited = await edit;
    expect(edited.status).toBe(200);
    expect((edited.body as { title: string }).title).toBe('Edited meanwhile');
  });
});
