/**
 * A path with dot segments (`.`, `..`, `%2e` spellings, after a `\`), or a target with a `#`
 * (never part of a request target), is another spelling of the path it resolves to: it answers
 * a 308 there that no shared cache stores, or a 404 with `no-store`, never the page it resolves
 * to under a key no purge names. Nor does a query string on a page or asset that reads none. Requests go out with node:http exactly as written (fetch
 * would resolve the dot segments first).
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount } from '../support/api';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
}

function raw(target: string, method = 'GET'): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Seconds a shared cache may keep the response: s-maxage, else max-age; 0 for no-store or private. */
function sharedLifetime(cacheControl: string | undefined): number {
  const cc = (cacheControl ?? '').toLowerCase();
  if (/no-store|private/.test(cc)) return 0;
  const seconds = /s-maxage=(\d+)/.exec(cc) ?? /max-age=(\d+)/.exec(cc);
  // No Cache-Control at all: a 308 is cacheable by default (heuristically), so count it as long.
  return seconds ? Number(seconds[1]) : Infinity;
}

describe('dot-segment paths', () => {
  it('are never cacheable for long: a 308 to the resolved path, kept by no shared cache', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Dot Segments' });
    const published = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(published.status).toBe(200);
    const canonical = published.body.canonical_path as string;

    const cases: [string, string][] = [
      [`${canonical}/..`, '/'],
      [`${canonical}/.`, `${canonical}/`],
      [`/.${canonical}`, canonical],
      [`/x/..${canonical}`, canonical],
      [`/x/%2e%2E${canonical}?utm=1`, `${canonical}?utm=1`],
      ['/anything/..', '/'],
      ['/x/%2e%2e', '/'],
      ['/x/.%2E', '/'],
      ['/x/../', '/'],
      ['/x/..?a=b', '/?a=b'],
      ['/console/..', '/'],
      ['/console/%2e%2e/_not-found', '/_not-found'],
      ['/console/./account', '/console/account'],
      ['/%2e', '/'],
      ['/x\\..', '/'],
      ['/_next/static/../../', '/'],
      ['/api/media/x/..', '/api/media/'],
      ['/a/b/../c/./d', '/a/c/d'],
      // A `#` ends the path for the WHATWG parser, not for a cache reading the raw target.
      ['/#/..', '/'],
      [`${canonical}#x/..`, canonical],
    ];
    for (const [target, location] of cases) {
      for (const method of ['GET', 'HEAD']) {
        const res = await raw(target, method);
        expect(res.status, `${method} ${target}`).toBe(308);
        expect(res.headers.location, target).toBe(location);
        expect(res.headers['cache-control'], target).toBe('no-store');
      }
    }
  });

  it('that resolve outside this host answer 404 with no-store, never a redirect to another host', async () => {
    for (const target of ['/x/..//evil.example', '/..//evil.example/', '/\\evil.example/..', '/./\\evil.example']) {
      const res = await raw(target);
      expect(res.status, target).toBe(404);
      expect(res.headers['cache-control'], target).toBe('no-store');
      expect(res.headers.location, target).toBeUndefined();
    }
  });

  it('never get a long shared-cache lifetime; the canonical paths keep theirs', async () => {
    for (const target of ['/.', '/./', '/x/..', '/%2E%2E', '/console/..', '/_next/../']) {
      const res = await raw(target);
      expect(res.status, target).not.toBe(200);
      expect(sharedLifetime(res.headers['cache-control']), target).toBeLessThanOrEqual(10);
    }
    // Not dot segments: read as they are, as before.
    const home = await raw('/');
    expect(home.status).toBe(200);
    // Another query on a page or asset that reads none is not another page to keep for a year.
    expect(sharedLifetime(home.headers['cache-control'])).toBeGreaterThan(60);
    const asset = /\/_next\/static\/[^"?]+\.(?:js|css)/.exec(await (await fetch(`${baseUrl()}/`)).text())?.[0];
    expect(asset, 'the home page links a static asset').toBeDefined();
    expect(sharedLifetime((await raw(asset!)).headers['cache-control'])).toBeGreaterThan(60);
    for (const target of ['/?anything', '/?a=1&b=2', `${asset}?v=2`, '/favicon.ico?x']) {
      const res = await raw(target);
      expect(res.status, target).toBe(200);
      expect(sharedLifetime(res.headers['cache-control']), target).toBe(0);
    }
    expect((await raw('/x/..x')).headers['cache-control']).toBe('no-store');
    expect((await raw('/api/v1/author/posts/..')).status).toBe(400);
  });

  it('of a reader beacon, and every other spelling of one, answer 404 with no-store: never a redirect to a beacon', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Beacon Spellings' });
    const published = await api('POST', `/posts/${post.id}/publish`, { token });
    expect(published.status).toBe(200);
    const canonical = published.body.canonical_path as string;
    const id = canonical.slice(canonical.lastIndexOf('-') + 1);
    // The canonical spelling is a beacon (a reader's 200 or 204), so the others are refused for their spelling.
    expect([200, 204]).toContain((await raw(`/api/reader/${id}/open.gif`)).status);
    for (const target of [
      `//api/reader/${id}/open.gif`,
      `/api//reader/${id}/open.gif`,
      `///api/reader/${id}/open.gif`,
      `/api/reader/x/../${id}/open.gif`,
      `/x/../api/reader/${id}/open.gif`,
      `/api/./reader/${id}/open.gif`,
      `/API/READER/${id}/open.gif`,
      `/api/%72eader/${id}/open.gif`,
      `/api%2freader/${id}/open.gif`,
      `/api\\reader/${id}/open.gif`,
    ]) {
      const res = await raw(target);
      expect(res.status, target).toBe(404);
      expect(res.headers.location, target).toBeUndefined();
      expect(res.headers['cache-control'], target).toBe('no-store');
    }
  });
});
