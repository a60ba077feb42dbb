/**
 * One address per public page and stored file, the one a purge names. Any other spelling of it
 * (percent-escapes, another case) answers a redirect there that shared caches keep for seconds
 * only, never the page or the file under a key no purge reaches; Next's own redirects and error
 * pages, under whatever path they are reached, are never stored.
 */
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createPost, newAccount } from '../support/api';
import { mediaForm, solidPng } from './media-helpers';

/** The raw path as written (fetch would normalise `..` and some escapes). */
async function raw(path: string): Promise<{ status: number; headers: Headers }> {
  const { request } = await import('node:http');
  const url = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      res.resume();
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SHORT = 'public, max-age=0, s-maxage=10';

/** Every letter of `text` at `indexes` written as its percent-escape. */
const escaped = (text: string, every = 2) =>
  [...text].map((c, i) => (i % every === 0 && /[a-z0-9-]/.test(c) ? `%${c.charCodeAt(0).toString(16)}` : c)).join('');

describe('a public page under another spelling of its path', () => {
  it('answers 308 to the canonical path, kept by caches for seconds only', async () => {
    const { token } = await newAccount();
    const post = await createPost(token, { title: 'Hello World' });
    const published = await api('POST', `/posts/${post.id}/publish`, { token });
    const canonical = published.body.canonical_path as string;
    expect(canonical).toMatch(/^\/hello-world-[0-9a-z]{10}$/);
    const page = await raw(canonical);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toMatch(/s-maxage=60/);

    const slug = canonical.slice(1, canonical.lastIndexOf('-'));
    const id = canonical.slice(canonical.lastIndexOf('-') + 1);
    for (const alias of [
      `/hello%2dworld-${id}`,
      `/${escaped(slug)}-${id}`,
      `/${slug}-${escaped(id, 3)}`,
      `/Hello-World-${id}`,
      `/${slug}-${id.toUpperCase()}`,
      `/${slug.toUpperCase()}-${id.toUpperCase()}`,
    ]) {
      const res = await raw(alias);
      expect(res.status, alias).toBe(308);
      expect(res.headers.get('location'), alias).toBe(canonical);
      expect(res.headers.get('cache-control'), alias).toBe(SHORT);
    }
  });
});

describe('a stored file under another spelling of its path', () => {
  it('answers 308 to the lower-case uuid, never the year-long immutable file', async () => {
    const { token } = await newAccount();
    const upload = await fetch(`${baseUrl()}/api/v1/author/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: mediaForm(await solidPng(8, 8)),
    });
    expect(upload.status).toBe(200);
    const url = ((await upload.json()) as { url: string }).url;
    expect((await raw(url)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const uuid = url.slice('/api/media/'.length);
    for (const alias of [`/api/media/${uuid.toUpperCase()}`, `/api/media/${escaped(uuid)}`, `${url}?v=2`, `${url}?`]) {
      const res = await raw(alias);
      expect(res.status, alias).toBe(308);
      expect(res.headers.get('location'), alias).toBe(url);
      expect(res.headers.get('cache-control'), alias).toBe(SHORT);
    }
  });
});

describe("Next's own answers", () => {
  it('redirects and error pages, reached under any path, are never stored', async () => {
    for (const path of [
      '/console/%2e%2e/_not-found',
      '/console/../_not-found',
      '/_not-found',
      '/no-such-page',
      '/hello-world-abcdefghij/',
      '/_next/static/no-such-file.js',
    ]) {
      const res = await raw(path);
      expect(res.status, path).toBeGreaterThanOrEqual(300);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
  });
});
