/**
 * GET and HEAD /api/media/{uuid}: no auth, exact headers, strong ETag with 304, byte ranges
 * (206/416), 404 for unknown and malformed ids. Posters and MP4s are served the same way.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, newAccount } from '../support/api';
import { mediaForm, noisePng } from './media-helpers';

let media: { id: string; url: string; byte_size: number; mime_type: string };
let original: Buffer;

beforeAll(async () => {
  const { token } = await newAccount();
  // Big enough (~1 MiB) that a range and a streamed body are meaningful.
  const res = await api('POST', '/media', { token, body: mediaForm(await noisePng(1)) });
  expect(res.status, res.text).toBe(200);
  media = res.body;
  original = Buffer.from(await (await fetch(`${baseUrl()}${media.url}`)).arrayBuffer());
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${baseUrl()}${path}`, { method, headers });

describe('GET /api/media/{uuid}', () => {
  it('serves the file without auth with type, length, strong ETag, immutable caching and nosniff', async () => {
    const res = await get(media.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(media.byte_size));
    expect(res.headers.get('etag')).toMatch(/^"sha256-[0-9a-f]{64}"$/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(original)).toBe(true);
    expect(body.length).toBe(media.byte_size);
    // Upper-case ids address the same file.
    expect((await get(media.url.toUpperCase().replace('/API/MEDIA/', '/api/media/'))).status).toBe(200);
  });

  it('answers 304 to If-None-Match with the ETag (also in a list, weak form, or *) and 200 otherwise', async () => {
    const etag = (await get(media.url)).headers.get('etag')!;
    for (const value of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const res = await get(media.url, { 'if-none-match': value });
      expect(res.status, value).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
    expect((await get(media.url, { 'if-none-match': '"sha256-nope"' })).status).toBe(200);
  });

  it('serves byte ranges with 206 and Content-Range; an unsatisfiable one is 416', async () => {
    const size = media.byte_size;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-', 1000, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(media.url, { range });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers.get('content-length')).toBe(String(end - start + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(original.subarray(start, end + 1))).toBe(true);
    }
    const beyond = await get(media.url, { range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);
    // Not a single bytes range: the whole file (RFC 9110 lets a server ignore Range).
    for (const range of ['bytes=0-1,5-9', 'items=0-1', 'bytes=abc']) {
      const res = await get(media.url, { range });
      expect(res.status, range).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(size));
      await res.arrayBuffer();
    }
    // If-Range with another validator: the whole file.
    const stale = await get(media.url, { range: 'bytes=0-9', 'if-range': '"sha256-old"' });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it('HEAD answers the same headers without a body, ranges included', async () => {
    const head = await get(media.url, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(media.byte_size));
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(head.headers.get('etag')).toMatch(/^"sha256-/);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const ranged = await get(media.url, { range: 'bytes=10-19' }, 'HEAD');
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 10-19/${media.byte_size}`);
    expect((await get('/api/media/00000000-0000-4000-8000-000000000000', {}, 'HEAD')).status).toBe(404);
  });

  it('404 not_found for unknown and malformed ids', async () => {
    for (const path of [
      '/api/media/00000000-0000-4000-8000-000000000000',
      '/api/media/not-a-uuid',
      '/api/media/..%2F..%2Fetc%2Fpasswd',
      `/api/media/${media.id}x`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });
});
