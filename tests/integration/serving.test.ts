import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount, serviceEnv } from '../support/api';
import { metricsOf, startService, type RunningService } from '../support/service';
import { GENERIC_EMBED_HOSTS } from '../../server/content/embed-allowlist';

/**
 * What the Node server answers itself, before Next: the bind address, Prometheus metrics,
 * public article pages with their cache validators, and 401 before a REST body is read.
 */

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('metrics', () => {
  it('are Prometheus text with route templates and statuses, never an id or a token in a label', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    expect((await api('GET', `/posts/${post.id}`, { token })).status).toBe(200);
    expect((await api('GET', '/posts/00000000-0000-4000-8000-000000000000', { token })).status).toBe(404);

    const res = await metricsOf(baseUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(
      /^http_requests_total\{method="GET",route="\/api\/v1\/author\/posts\/\{id\}",status="200"\} \d+$/m,
    );
    expect(text).toMatch(
      /^http_requests_total\{method="GET",route="\/api\/v1\/author\/posts\/\{id\}",status="404"\} \d+$/m,
    );
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{.*le="0\.005".*\} \d+$/m);
    for (const family of [
      'rate_limit_refusals_total',
      'content_conversion_seconds',
      'content_conversion_queue_depth',
      'db_pool_connections',
      'db_pool_waiting',
    ]) {
      expect(text).toContain(`# TYPE ${family} `);
    }
    expect(text).not.toMatch(UUID_IN_TEXT);
    expect(text).not.toContain('dp_live_');
    expect(text).not.toContain(post.public_id);
  });

  it('count rate-limit refusals by class', async () => {
    const { token } = await newAccount({ limits: { read_per_min: 1 } });
    const before = refusals(await (await metricsOf(baseUrl())).text(), 'read');
    expect((await api('GET', '/me', { token })).status).toBe(200);
    expect((await api('GET', '/me', { token })).status).toBe(429);
    const after = refusals(await (await metricsOf(baseUrl())).text(), 'read');
    expect(after).toBe(before + 1);
  });
});

function refusals(text: string, cls: string): number {
  const match = new RegExp(`^rate_limit_refusals_total\\{class="${cls}"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

describe('an instance with HOST, METRICS_TOKEN and CONSOLE=off set', () => {
  let other: RunningService;
  const metricsToken = 'metrics-secret-0123456789';
  beforeAll(async () => {
    other = await startService({
      DATA_DIR: serviceEnv().DATA_DIR,
      HOST: '127.0.0.2',
      METRICS_TOKEN: metricsToken,
      CONSOLE: 'off',
    });
  });
  afterAll(async () => {
    await other?.stop();
  });

  it('binds the address HOST names and prints the address it bound', async () => {
    expect(other.baseUrl).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    const port = new URL(other.baseUrl).port;
    expect((await fetch(`${other.baseUrl}/api/health`)).status).toBe(200);
    // Nothing listens on that port at another loopback address.
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  });

  it('serves the API and the public pages without the console: console paths are 404 in the error shape, never stored', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Served without a console' });
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    const me = await fetch(`${other.baseUrl}/api/v1/author/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    const page = await fetch(`${other.baseUrl}${post.canonical_path}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Served without a console');
    for (const path of ['/console', '/console/posts', `/console/posts/${post.id}`, '/']) {
      const answer = await fetch(`${other.baseUrl}${path}`, { redirect: 'manual' });
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('cache-control'), path).toBe('no-store');
      expect(await answer.json(), path).toEqual({ error: expect.any(String), code: 'not_found' });
    }
    const upload = await fetch(`${other.baseUrl}/console/media/upload`, { method: 'POST', body: 'x' });
    expect(upload.status).toBe(404);
    // The shared instance, started with the console, answers it (the sign-in page).
    const withConsole = await fetch(`${baseUrl()}/console`, { redirect: 'manual' });
    expect(withConsole.status).toBe(200);
    expect(withConsole.headers.get('content-type')).toMatch(/^text\/html/);
    // No Next thread was started, so no console route was loaded before "serving".
    const startUp = other.logs.join('');
    expect(startUp).toContain('serving on');
    expect(startUp).not.toContain('console routes loaded');
  });

  it('answers /api/metrics only to the bearer of METRICS_TOKEN', async () => {
    const none = await fetch(`${other.baseUrl}/api/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: expect.any(String), code: 'unauthorized' });
    const wrong = await fetch(`${other.baseUrl}/api/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}x` },
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${other.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('# TYPE http_requests_total counter');
  });
});

describe('public article pages', () => {
  it('carry a strong ETag, shared-cache Cache-Control and a script-free CSP; 304 on a match', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, {
      title: 'Cached page',
      markdown: 'Readers see <b>this</b>.\n\n<script>alert(1)</script>',
    });
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);

    const page = await fetch(`${baseUrl()}${post.canonical_path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const cacheControl = page.headers.get('cache-control')!;
    expect(cacheControl).toContain('public');
    expect(cacheControl).toMatch(/s-maxage=\d+/);
    expect(cacheControl).toContain('stale-while-revalidate=');
    expectPublicPagePolicy(page.headers.get('content-security-policy'));
    const html = await page.text();
    expect(html).toContain('<h1');
    expect(html).toContain('Cached page');
    expect(html).not.toMatch(/<script/i);

    const again = await fetch(`${baseUrl()}${post.canonical_path}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');

    // An unpublished change leaves the public page (and its tag) alone; the next publish changes both.
    expect((await api('PATCH', `/posts/${post.id}`, { token, json: { title: 'Cached page, revised' } })).status).toBe(
      200,
    );
    const unchanged = await fetch(`${baseUrl()}${post.canonical_path}`, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    const republished = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(republished.status).toBe(200);
    const fresh = await fetch(`${baseUrl()}${republished.body.canonical_path}`, { headers: { 'if-none-match': etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('etag')).not.toBe(etag);
    expect(await fresh.text()).toContain('Cached page, revised');
  });

  it('redirect a stale slug with 308 and answer 404 for what is not published', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'First name' });
    expect((await fetch(`${baseUrl()}${post.canonical_path}`)).status).toBe(404);
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    const stale = await fetch(`${baseUrl()}/some-other-slug-${post.public_id}`, { redirect: 'manual' });
    expect(stale.status).toBe(308);
    expect(stale.headers.get('location')).toBe(post.canonical_path);
    expect((await api('POST', `/posts/${post.id}/unpublish`, { token })).status).toBe(204);
    const gone = await fetch(`${baseUrl()}${post.canonical_path}`);
    expect(gone.status).toBe(404);
    expectPublicPagePolicy(gone.headers.get('content-security-policy'));
  });

  it('frame only allowlisted players, sandboxed, and load images and video from this origin only', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, {
      title: 'Embeds',
      markdown:
        '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe>\n\n<iframe src="https://evil.example/x"></iframe>',
    });
    expect((await api('POST', `/posts/${post.id}/publish`, { token })).status).toBe(200);
    const page = await fetch(`${baseUrl()}${post.canonical_path}`);
    const policy = expectPublicPagePolicy(page.headers.get('content-security-policy'));
    const html = await page.text();
    const frames = [...html.matchAll(/<iframe [^>]*>/g)].map((m) => m[0]);
    expect(frames).toEqual([
      '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" sandbox="allow-scripts allow-same-origin allow-popups allow-presentation" referrerpolicy="strict-origin-when-cross-origin">',
    ]);
    expect(policy.get('frame-src')).toContain('https://www.youtube.com');
  });
});

/**
 * The public page policy, directive by directive: no script at all, frames only from the embed
 * allowlist, images and video only from this origin, never framed. Returns the directives.
 */
function expectPublicPagePolicy(header: string | null): Map<string, string[]> {
  expect(header).toBeTruthy();
  const policy = new Map(
    header!.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('script-src')).toEqual(["'none'"]);
  expect(policy.get('img-src')).toEqual(["'self'"]);
  expect(policy.get('media-src')).toEqual(["'self'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'none'"]);
  expect(policy.get('form-action')).toEqual(["'none'"]);
  expect(new Set(policy.get('frame-src'))).toEqual(new Set(GENERIC_EMBED_HOSTS.map((host) => `https://${host}`)));
  expect(policy.has('connect-src')).toBe(false); // default-src 'none' applies
  return policy;
}

describe('REST requests without a token', () => {
  it('get 401 before their body is read', async () => {
    const url = new URL(`${baseUrl()}/api/v1/author/posts`);
    // Announce 100 MB, send a few bytes and wait: the answer must come without the rest.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.write('{"title":');
      setTimeout(() => reject(new Error('no answer before the body was complete')), 10_000).unref();
    });
    expect(status).toBe(401);
  });
});
