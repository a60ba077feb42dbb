/**
 * POST /media/from-url over HTTP against files served by this test on 127.0.0.1 (the global
 * service allows 127.0.0.0/8 for exactly this). Forbidden targets are loopback spellings outside
 * that range (0.0.0.0, [::1]): refused before connecting, and harmless if a guard ever failed.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, newAccount } from '../support/api';
import { animated, MEDIA_KEYS, solidPng, startFileServer, UUID_RE, type FileServer } from './media-helpers';

let files: FileServer;
let token: string;
let png: Buffer;
let gif: Buffer;

beforeAll(async () => {
  png = await solidPng(24, 18);
  gif = await animated('gif', 3);
  const mp4 = Buffer.concat([
    Buffer.from('0000001c667479706d703432', 'hex'),
    Buffer.from('mp42isomavc1'),
    Buffer.alloc(256),
  ]);
  files = await startFileServer({
    '/image.png': { type: 'image/png', body: png },
    '/mislabelled': { type: 'text/plain', body: png },
    '/hop1': { redirect: '/hop2', status: 301 },
    '/hop2': { redirect: '/hop3', status: 307 },
    '/hop3': { redirect: '/image.png', status: 302 },
    '/page.html': { type: 'text/html', body: '<!doctype html><html><body><img src="/image.png"></body></html>' },
    '/html-as-png.png': { type: 'image/png', body: '<html><script>alert(1)</script></html>' },
    '/anim.gif': { type: 'image/gif', body: gif },
    '/anim.webp': { type: 'image/webp', body: await animated('webp', 2) },
    '/clip': { type: 'video/mp4', body: mp4 },
    '/clip.mp4': { type: 'video/mp4', body: mp4 },
    '/missing-upstream': { type: 'text/plain', body: 'gone', status: 404 },
  });
  ({ token } = await newAccount());
});
afterAll(() => files?.close());

const fromUrl = (url: unknown, t = token) =>
  api('POST', '/media/from-url', { token: t, json: url === undefined ? {} : { url } });

describe('POST /media/from-url: stored', () => {
  it('stores an image and answers the exact Media object; the type comes from the bytes', async () => {
    const res = await fromUrl(files.url('/image.png'));
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MEDIA_KEYS);
    expect(res.body.id).toMatch(UUID_RE);
    expect(res.body).toEqual({
      id: res.body.id,
      url: `/api/media/${res.body.id}`,
      kind: 'image',
      mime_type: 'image/png',
      byte_size: expect.any(Number),
      width: 24,
      height: 18,
      status: 'ready',
      poster_url: null,
    });
    expect(res.headers.get('ratelimit-remaining')).toBeTruthy();
    const mislabelled = await fromUrl(files.url('/mislabelled'));
    expect(mislabelled.status).toBe(200);
    expect(mislabelled.body.mime_type).toBe('image/png');
  });

  it('follows a redirect chain (301 → 307 → 302) and checks every hop', async () => {
    const before = { ...files.hits };
    const res = await fromUrl(files.url('/hop1'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.width).toBe(24);
    for (const hop of ['/hop1', '/hop2', '/hop3', '/image.png'])
      expect(files.hits[hop]! - (before[hop] ?? 0), hop).toBe(1);
  });

  it('stores an animated GIF as a muted MP4 (kind gif) with its first frame as poster', async () => {
    const res = await fromUrl(files.url('/anim.gif'));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_RE),
      url: `/api/media/${res.body.id}`,
      kind: 'gif',
      mime_type: 'video/mp4',
      byte_size: expect.any(Number),
      width: 16,
      height: 16,
      status: 'ready',
      poster_url: expect.stringMatching(/^\/api\/media\/[0-9a-f-]{36}$/),
    });
    const video = await fetch(`${baseUrl()}${res.body.url}`);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    const mp4 = Buffer.from(await video.arrayBuffer());
    expect(mp4.length).toBe(res.body.byte_size);
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    // faststart: the moov atom comes before the media data, so playback starts at once.
    expect(mp4.indexOf('moov')).toBeLessThan(mp4.indexOf('mdat'));
    const poster = await fetch(`${baseUrl()}${res.body.poster_url}`);
    expect(poster.headers.get('content-type')).toBe('image/png');
    const frame = await sharp(Buffer.from(await poster.arrayBuffer())).metadata();
    expect([frame.width, frame.height, frame.pages ?? 1]).toEqual([16, 16, 1]);
  });
});

describe('POST /media/from-url: refused', () => {
  const expect400 = (res: { status: number; body: any; text: string }, pattern: RegExp) => {
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(pattern) });
  };

  it('missing, empty or non-string url', async () => {
    expect400(await fromUrl(undefined), /^url: /);
    expect400(await fromUrl(''), /^url: must not be empty/);
    expect400(await fromUrl('   '), /^url: must not be empty/);
    expect400(await fromUrl(42), /^url: /);
  });

  it('non-http(s) schemes and relative URLs', async () => {
    for (const url of [
      'ftp://127.0.0.1/x.png',
      'file:///etc/passwd',
      'data:image/png;base64,iVBORw0KGgo=',
      'javascript:alert(1)',
      'gopher://127.0.0.1:70/_x',
    ]) {
      expect400(await fromUrl(url), /^url: only http and https/);
    }
    expect400(await fromUrl('image.png'), /^url: not a valid URL/);
  });

  it("a local /api/media path, and an absolute URL of this service's own media path", async () => {
    const stored = await fromUrl(files.url('/image.png'));
    const before = files.connections;
    expect400(await fromUrl(stored.body.url), /already stored here/);
    expect400(await fromUrl(`${baseUrl()}${stored.body.url}`), /already stored here/);
    expect(files.connections).toBe(before);
  });

  it('a redirect into a forbidden address is refused without connecting there', async () => {
    const trap = await startFileServer({ '/x.png': { type: 'image/png', body: png } });
    try {
      files.routes['/to-unspecified'] = { redirect: `http://0.0.0.0:${trap.port}/x.png` };
      files.routes['/to-ipv6-loopback'] = { redirect: `http://[::1]:${trap.port}/x.png` };
      files.routes['/to-file'] = { redirect: 'file:///etc/passwd' };
      expect400(await fromUrl(files.url('/to-unspecified')), /^url: address not allowed$/);
      expect400(await fromUrl(files.url('/to-ipv6-loopback')), /^url: address not allowed$/);
      expect400(await fromUrl(files.url('/to-file')), /^url: redirect to only http and https/);
      expect(trap.connections).toBe(0);
    } finally {
      await trap.close();
    }
  });

  it('HTML and other content that is not a supported image', async () => {
    expect400(await fromUrl(files.url('/page.html')), /^url: not a supported image \(html\)/);
    expect400(await fromUrl(files.url('/html-as-png.png')), /^url: not a supported image \(html\)/);
  });

  it('a direct video file URL (by its name, before any download) and video content', async () => {
    const before = files.hits['/clip.mp4'] ?? 0;
    expect400(await fromUrl(files.url('/clip.mp4')), /^url: direct video files are not accepted/);
    expect(files.hits['/clip.mp4'] ?? 0).toBe(before);
    expect400(await fromUrl(files.url('/clip')), /^url: not a supported image \(mp4\)/);
  });

  it('an upstream error status', async () => {
    expect400(await fromUrl(files.url('/missing-upstream')), /^url: source answered HTTP 404/);
  });

  it('an animated WebP is 422 animated_image (only GIFs become videos)', async () => {
    const res = await fromUrl(files.url('/anim.webp'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.stringMatching(/^url: animated/), code: 'animated_image' });
  });

  it('nothing refused is charged to the daily quota', async () => {
    const { token: fresh } = await newAccount();
    await fromUrl(files.url('/page.html'), fresh);
    await fromUrl(files.url('/anim.webp'), fresh);
    await fromUrl('', fresh);
    expect((await api('GET', '/me', { token: fresh })).body.limits.daily_media_bytes_used).toBe(0);
    const ok = await fromUrl(files.url('/image.png'), fresh);
    expect((await api('GET', '/me', { token: fresh })).body.limits.daily_media_bytes_used).toBe(ok.body.byte_size);
  });

  it('uses the media minute window (429 with headers)', async () => {
    const { token: limited } = await newAccount({ limits: { media_per_min: 1 } });
    expect((await fromUrl(files.url('/image.png'), limited)).status).toBe(200);
    const res = await fromUrl(files.url('/image.png'), limited);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    expect(res.headers.get('retry-after')).toBeTruthy();
  });
});
