/**
 * The edges of the REST surface and of the pages next to it, over HTTP: HEAD, odd URLs (a query
 * on the bare prefix, a trailing slash, forms two URL parsers read differently), bodies that are
 * JSON but not objects, the cover's "not both", metric labels, the metrics endpoint's default
 * access, and what a request header may not change on a public page.
 */
import { metricsOf } from '../support/service';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount } from '../support/api';
import { mediaForm, solidPng, startExtraService, startFileServer } from './media-helpers';
import { freePort } from '../support/ports';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request whose target is sent exactly as written (fetch would normalise `\`, `..` and `#`). */
function raw(
  method: string,
  target: string,
  opts: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: hostname, port, method, path: target, headers: opts.headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

async function metricsText(): Promise<string> {
  const res = await metricsOf(baseUrl());
  expect(res.status).toBe(200);
  return res.text();
}

describe('HEAD on author paths: the GET without its body', () => {
  it('is 401 without a token, 404 for an unknown path or article, and charged a read unit like the GET', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    for (const path of ['/posts', '/me', `/posts/${post.id}`, '/nothing-here']) {
      const anonymous = await raw('HEAD', `/api/v1/author${path}`);
      expect(anonymous.status, path).toBe(path === '/nothing-here' ? 404 : 401);
      expect(anonymous.text).toBe('');
    }
    expect((await raw('HEAD', `/api/v1/author/posts/${UNKNOWN_ID}`, { headers: auth(token) })).status).toBe(404);
    expect((await raw('HEAD', '/api/v1/author/nothing-here', { headers: auth(token) })).status).toBe(404);

    const first = await raw('HEAD', '/api/v1/author/posts', { headers: auth(token) });
    expect(first.status).toBe(200);
    expect(first.text).toBe('');
    expect(first.headers['cache-control']).toBe('no-store');
    const second = await raw('HEAD', `/api/v1/author/posts/${post.id}`, { headers: auth(token) });
    expect(second.status).toBe(200);
    expect(second.headers.etag).toBeTruthy();
    expect(Number(second.headers['ratelimit-remaining'])).toBe(Number(first.headers['ratelimit-remaining']) - 1);
    const get = await api('GET', '/me', { token });
    expect(Number(get.headers.get('ratelimit-remaining'))).toBe(Number(second.headers['ratelimit-remaining']) - 1);
  });
});

describe('odd URLs', () => {
  it('a query string on the bare prefix is 404, whatever the method', async () => {
    const { token } = await newAccount();
    for (const method of ['GET', 'DELETE', 'POST', 'HEAD']) {
      for (const target of ['/api/v1/author?x=1', '/api/v1/author/?x=1', '/api/v1/author']) {
        const res = await raw(method, target, { headers: auth(token) });
        expect(res.status, `${method} ${target}`).toBe(404);
        expect(res.headers['cache-control']).toBe('no-store');
        if (method !== 'HEAD') expect(JSON.parse(res.text)).toEqual({ error: 'Not found', code: 'not_found' });
      }
    }
  });

  it('one trailing slash is ignored on every route, POST /media/ included', async () => {
    const { token } = await newAccount();
    const created = await fetch(`${baseUrl()}/api/v1/author/posts/`, {
      method: 'POST',
      headers: { ...auth(token), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Slash', markdown: 'Text.' }),
    });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { id: string };
    expect((await fetch(`${baseUrl()}/api/v1/author/posts/${post.id}/`, { headers: auth(token) })).status).toBe(200);
    expect((await fetch(`${baseUrl()}/api/v1/author/me/`, { headers: auth(token) })).status).toBe(200);
    expect((await fetch(`${baseUrl()}/api/v1/author/openapi.json/`)).status).toBe(200);
    const upload = await fetch(`${baseUrl()}/api/v1/author/media/`, {
      method: 'POST',
      headers: auth(token),
      body: mediaForm(await solidPng(8, 8)),
    });
    expect(upload.status).toBe(200);
    expect(((await upload.json()) as { kind: string }).kind).toBe('image');
  });

  it('refuses `\\`, `#`, `//` and dot segments with 400: the example create-as-unpublish is neither', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const before = (await api('GET', '/posts', { token })).body.items.length;
    const body = JSON.stringify({ title: 'Smuggled', markdown: 'Smuggled create.' });
    const headers = { ...auth(token), 'content-type': 'application/json' };
    const smuggled = await raw('POST', '/api/v1/author/posts/x\\..#/unpublish', { headers, body });
    expect(smuggled.status).toBe(400);
    expect(JSON.parse(smuggled.text)).toEqual({ error: expect.stringMatching(/^path: /) });
    for (const target of [
      `/api/v1/author/posts/${post.id}/..`,
      `/api/v1/author/posts/x/%2e%2E/`,
      `/api/v1/author/posts/./${post.id}`,
      `/api/v1/author//posts`,
      `/api/v1/author/posts\\${post.id}`,
      `/api/v1/author/posts#x`,
      `/api/v1/author/posts?a=1#x`,
    ]) {
      const res = await raw('GET', target, { headers: auth(token) });
      expect(res.status, target).toBe(400);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect((await api('GET', '/posts', { token })).body.items.length).toBe(before);
    // The early decisions read the same path: the refusal is labelled as no route, not as an unpublish.
    const text = await metricsText();
    expect(text).not.toMatch(/route="\/api\/v1\/author\/posts\/\{id\}\/unpublish",status="201"/);
    expect(text).toMatch(/^http_requests_total\{method="POST",route="\/api\/v1\/author\/\*",status="400"\} \d+$/m);
  });
});

describe('bodies and fields', () => {
  it('publish and unpublish refuse a body that is JSON but not an object, as every write does', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    for (const body of ['[1]', '"x"', '3', 'null', 'true']) {
      for (const action of ['publish', 'unpublish']) {
        const res = await api('POST', `/posts/${post.id}/${action}`, {
          token,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status, `${action} ${body}`).toBe(400);
        expect(res.body).toEqual({ error: 'body: must be a JSON object' });
      }
    }
    expect((await api('GET', `/posts/${post.id}`, { token })).body.status).toBe('draft');
  });

  it('checks the token before the body: a bad token with an invalid body is 401', async () => {
    const res = await api('POST', '/posts', {
      token: 'dp_live_' + 'x'.repeat(43),
      body: '{not json',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(401);
  });

  it('cover_asset_id and cover_url together are 400 unless both are null', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const cases = [
      { cover_asset_id: null, cover_url: 'https://images.example/cover.png' },
      { cover_asset_id: UNKNOWN_ID, cover_url: null },
      { cover_asset_id: UNKNOWN_ID, cover_url: 'https://images.example/cover.png' },
    ];
    for (const cover of cases) {
      const patched = await api('PATCH', `/posts/${post.id}`, { token, json: cover });
      expect(patched.status, JSON.stringify(cover)).toBe(400);
      expect(patched.body.error).toMatch(/^cover_asset_id and cover_url: send one of them, not both/);
      const created = await api('POST', '/posts', { token, json: { title: 't', markdown: 'm', ...cover } });
      expect(created.status, JSON.stringify(cover)).toBe(400);
    }
  });
});

describe('a slug taken by another write while this one downloads its images', () => {
  it('is 409 after the downloads, as docs/api.md says, and the article is unchanged', async () => {
    const files = await startFileServer({
      '/slow.png': { type: 'image/png', body: await solidPng(10, 10), delayMs: 1500 },
    });
    try {
      const { token } = await newAccount();
      const first = await createPost(token, { title: 'First' });
      const second = await createPost(token, { title: 'Second' });
      const slug = `taken-${Date.now().toString(36)}`;
      const slow = api('PATCH', `/posts/${first.id}`, {
        token,
        json: { slug, markdown: `![x](${files.url('/slow.png')})` },
      });
      for (let i = 0; i < 100 && !files.hits['/slow.png']; i++) await new Promise((r) => setTimeout(r, 50));
      expect(files.hits['/slow.png']).toBe(1);
      const taker = await api('PATCH', `/posts/${second.id}`, { token, json: { slug } });
      expect(taker.status).toBe(200);
      const refused = await slow;
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatch(/^slug: /);
      const after = await api('GET', `/posts/${first.id}`, { token });
      expect(after.body.slug).toBe(first.slug);
      expect(after.body.markdown).toBe(first.markdown);
    } finally {
      await files.close();
    }
  });
});

describe('metrics', () => {
  it('label only known routes: unknown console words become `*`', async () => {
    const word = `zz${Date.now().toString(36)}`;
    // Bodies read to the end: a request is counted when its response has finished.
    for (const path of [
      `/console/${word}`,
      `/console/${word}-a/${word}-b/${word}-c`,
      `/console/articles/${word}`,
      '/console/account',
    ])
      await (await fetch(`${baseUrl()}${path}`, { redirect: 'manual' })).text();
    const text = await metricsText();
    expect(text).not.toContain(word);
    expect(text).toMatch(/route="\/console\/\*"/);
    expect(text).toMatch(/route="\/console\/account"/);
  });

  it('without METRICS_TOKEN are 404 on the service listener, however local or relayed; METRICS_PORT serves them on loopback', async () => {
    const metricsPort = await freePort();
    const bare = await startExtraService({ METRICS_TOKEN: '', METRICS_PORT: String(metricsPort) });
    try {
      // A TLS terminator or proxy on this machine connects from loopback, with or without
      // forwarding headers: nothing on the service's listener tells it from an operator.
      const variants: Record<string, string>[] = [
        {},
        { 'x-forwarded-for': '203.0.113.9' },
        { authorization: 'Bearer anything-at-all-here' },
      ];
      for (const headers of variants) {
        const res = await fetch(`${bare.service.baseUrl}/api/metrics`, { headers });
        expect(res.status, JSON.stringify(headers)).toBe(404);
        expect(await res.json()).toEqual({ error: 'Not found', code: 'not_found' });
      }
      for (const path of ['/metrics', '/api/metrics']) {
        const res = await fetch(`http://127.0.0.1:${metricsPort}${path}`);
        expect(res.status, path).toBe(200);
        expect(await res.text()).toContain('# TYPE http_requests_total counter');
      }
      expect((await fetch(`http://127.0.0.1:${metricsPort}/api/health`)).status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});

describe('percent-encoded console paths', () => {
  it('are 404 with no-store, never a page a cache keeps for a year', async () => {
    for (const target of ['/%63onsole', '/c%6Fnsole/account', '/%63onsole/%61ccount', '/console%2faccount']) {
      const res = await raw('GET', target);
      expect(res.status, target).toBe(404);
      expect(res.headers['cache-control'], target).toBe('no-store');
    }
  });
});

describe('public pages', () => {
  it('take no origin from Host or X-Forwarded-*: without PUBLIC_ORIGIN the canonical link is the path', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Poison-proof' });
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    const plain = await raw('GET', post.canonical_path);
    expect(plain.status).toBe(200);
    const forged = await raw('GET', post.canonical_path, {
      headers: { host: 'evil.example', 'x-forwarded-host': 'attacker.example', 'x-forwarded-proto': 'https' },
    });
    expect(forged.status).toBe(200);
    expect(forged.text).not.toMatch(/attacker\.example|evil\.example/);
    expect(forged.text).toBe(plain.text);
    expect(forged.headers.etag).toBe(plain.headers.etag);
    expect(forged.text).toContain(`<link rel="canonical" href="${post.canonical_path}">`);
    expect(forged.text).not.toContain('og:url');
  });

  it('may be served stale 30 s while revalidating and an hour only while the origin fails', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    const page = await fetch(`${baseUrl()}${post.canonical_path}`);
    expect(page.headers.get('cache-control')).toBe(
      'public, max-age=0, s-maxage=60, stale-while-revalidate=30, stale-if-error=3600',
    );
  });
});
