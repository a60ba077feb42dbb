/**
 * POST /media over HTTP: every file of the image corpus (tests/fixtures/corpus/images) gets the
 * answer its manifest flags call for, the Media object has exactly the contract's fields, the
 * daily usage grows by the stored bytes, and the multipart edge cases all get a plain 400.
 */
import sharp from 'sharp';
import { manifest, readImage, type ManifestEntry } from '../support/image-corpus';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../../server/media/image';
import { api, baseUrl, newAccount } from '../support/api';
import { MEDIA_KEYS, mediaForm, solidPng, UUID_RE } from './media-helpers';

const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'avif', 'gif']);
const MIME: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

const read = readImage;

/** Same reading of the flags as the unit test: accepted + valid + static (+ under the pixel cap) is stored. */
function expected(entry: ManifestEntry): 200 | 400 | 422 {
  if (!ACCEPTED.has(entry.format) || entry.valid !== true) return 400;
  if (entry.animated) return 422;
  if ((entry.width ?? 0) * (entry.height ?? 0) > MAX_IMAGE_PIXELS) return 400;
  return 200;
}

async function upload(token: string, bytes: Uint8Array, name = 'upload.bin', type = 'application/octet-stream') {
  return api('POST', '/media', { token, body: mediaForm(bytes, name, type) });
}

describe('POST /media with the image corpus', () => {
  let token: string;
  const results = new Map<string, Awaited<ReturnType<typeof upload>>>();

  beforeAll(async () => {
    ({ token } = await newAccount());
    // Four at a time: the corpus is 236 files, mostly tiny.
    const queue = [...manifest.files];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let entry = queue.shift(); entry; entry = queue.shift()) {
          // The client-side name and type are deliberately misleading: the type comes from the bytes.
          results.set(
            entry.file,
            await upload(token, read(entry.file), entry.file.replace(/\.\w+$/, '.png'), 'image/png'),
          );
        }
      }),
    );
  }, 600_000);

  it('covers the whole manifest', () => {
    expect(manifest.files.length).toBe(236);
    expect(results.size).toBe(236);
  });

  it.each(manifest.files.map((e) => [e.file, expected(e), e] as const))('%s → %i', async (file, want, entry) => {
    const res = results.get(file)!;
    expect(res.status, res.text).toBe(want);
    if (want === 400) {
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(/^file: /);
      return;
    }
    if (want === 422) {
      expect(res.body).toEqual({ error: expect.stringMatching(/^file: animated/), code: 'animated_image' });
      return;
    }
    const media = res.body;
    expect(Object.keys(media).sort()).toEqual(MEDIA_KEYS);
    expect(media.id).toMatch(UUID_RE);
    expect(media).toEqual({
      id: media.id,
      url: `/api/media/${media.id}`,
      kind: 'image',
      mime_type: MIME[entry.format],
      byte_size: expect.any(Number),
      width: expect.any(Number),
      height: expect.any(Number),
      status: 'ready',
      poster_url: null,
    });
    // EXIF orientation is applied, so orientations 5–8 swap the manifest's (stored-pixel) sides.
    const orientation = (await sharp(read(file)).metadata()).orientation ?? 1;
    const [w, h] = orientation >= 5 ? [entry.height, entry.width] : [entry.width, entry.height];
    expect([media.width, media.height]).toEqual([w, h]);

    const served = await fetch(`${baseUrl()}${media.url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(media.mime_type);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.length).toBe(media.byte_size);
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([media.width, media.height]);
    // Privacy: no EXIF (GPS), XMP or comments survive.
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
  });

  it('daily_media_bytes_used equals the byte_size of everything stored, and nothing for refusals', async () => {
    const stored = [...results.values()].filter((r) => r.status === 200);
    expect(stored.length).toBeGreaterThan(150);
    const total = stored.reduce((sum, r) => sum + (r.body.byte_size as number), 0);
    const me = await api('GET', '/me', { token });
    expect(me.body.limits.daily_media_bytes_used).toBe(total);
  });
});

describe('POST /media: the Media object and the daily usage', () => {
  it('returns exactly the Media fields and grows GET /me daily_media_bytes_used by byte_size', async () => {
    const { token } = await newAccount();
    const before = (await api('GET', '/me', { token })).body.limits.daily_media_bytes_used;
    expect(before).toBe(0);
    const res = await upload(token, await solidPng(40, 30), 'photo.png', 'image/png');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('10000');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Object.keys(res.body)).toEqual([
      'id',
      'url',
      'kind',
      'mime_type',
      'byte_size',
      'width',
      'height',
      'status',
      'poster_url',
    ]);
    expect(res.body).toMatchObject({
      kind: 'image',
      mime_type: 'image/png',
      width: 40,
      height: 30,
      status: 'ready',
      poster_url: null,
    });
    const after = (await api('GET', '/me', { token })).body.limits.daily_media_bytes_used;
    expect(after - before).toBe(res.body.byte_size);

    const second = await upload(token, await solidPng(10, 10, 1, 2, 3));
    expect((await api('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(after + second.body.byte_size);
  });

  it('strips EXIF location and applies the orientation', async () => {
    const { token } = await newAccount();
    const tagged = await sharp(await solidPng(30, 20))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Make: 'SpyCamera' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1' } })
      .toBuffer();
    const source = await sharp(tagged).metadata();
    expect([source.orientation, source.width, source.height]).toEqual([6, 30, 20]);
    expect(tagged.includes(Buffer.from('SpyCamera'))).toBe(true);
    const res = await upload(token, tagged, 'gps.jpg', 'image/jpeg');
    expect(res.status).toBe(200);
    expect([res.body.width, res.body.height]).toEqual([20, 30]);
    const bytes = Buffer.from(await (await fetch(`${baseUrl()}${res.body.url}`)).arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([20, 30]);
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(bytes.includes(Buffer.from('SpyCamera'))).toBe(false);
  });

  it('answers 429 rate_limited with the quota in the headers when the daily quota is used up', async () => {
    const png = await solidPng(40, 40);
    const probe = await newAccount();
    const size = (await upload(probe.token, png)).body.byte_size as number;
    const quota = size + 10;
    const { token } = await newAccount({ limits: { daily_media_bytes: quota } });
    const first = await upload(token, png);
    expect(first.status).toBe(200);
    expect(first.body.byte_size).toBe(size);
    const refused = await upload(token, await solidPng(60, 60, 0, 0, 255));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/daily media quota/), code: 'rate_limited' });
    expect(refused.headers.get('ratelimit-limit')).toBe(String(quota));
    expect(refused.headers.get('ratelimit-remaining')).toBe('10');
    const reset = Number(refused.headers.get('ratelimit-reset'));
    expect(reset % 86400).toBe(0); // next UTC midnight
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(reset - Math.floor(Date.now() / 1000) - retryAfter)).toBeLessThanOrEqual(2);
    // A refused upload charges nothing.
    expect((await api('GET', '/me', { token })).body.limits.daily_media_bytes_used).toBe(size);
  });

  it('answers 429 on the media minute limit before reading the body', async () => {
    const { token } = await newAccount({ limits: { media_per_min: 1 } });
    expect((await upload(token, await solidPng(8, 8))).status).toBe(200);
    const limited = await upload(token, await solidPng(8, 8));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });
});

describe('POST /media: multipart edge cases', () => {
  let token: string;
  let png: Buffer;
  beforeAll(async () => {
    ({ token } = await newAccount());
    png = await solidPng(12, 12);
  });

  const expect400 = (res: { status: number; body: any; text: string }, pattern: RegExp) => {
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(pattern) });
  };

  it('no file field', async () => {
    const form = new FormData();
    form.set('title', 'no file here');
    expect400(await api('POST', '/media', { token, body: form }), /^file: is required/);
    expect400(await api('POST', '/media', { token, body: new FormData() }), /^file: is required/);
  });

  it('two files', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png');
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'b.png');
    expect400(await api('POST', '/media', { token, body: form }), /exactly one file/);
  });

  it('empty file', async () => {
    expect400(await upload(token, new Uint8Array(0), 'empty.png', 'image/png'), /^file: empty file/);
  });

  it('wrong field name', async () => {
    expect400(
      await api('POST', '/media', { token, body: mediaForm(png, 'a.png', 'image/png', 'image') }),
      /unexpected file field "image"/,
    );
  });

  it('a text field named file', async () => {
    const form = new FormData();
    form.set('file', 'not a file');
    expect400(await api('POST', '/media', { token, body: form }), /must be a file part/);
  });

  it('not multipart: JSON, raw image bytes, no body (400: the file field is missing)', async () => {
    expect400(await api('POST', '/media', { token, json: { file: 'x' } }), /multipart\/form-data/);
    expect400(
      await api('POST', '/media', { token, body: new Uint8Array(png), headers: { 'content-type': 'image/png' } }),
      /multipart\/form-data/,
    );
    expect400(await api('POST', '/media', { token }), /multipart\/form-data/);
    expect400(
      await api('POST', '/media', { token, body: 'x', headers: { 'content-type': 'multipart/form-data' } }),
      /multipart\/form-data/,
    );
  });

  it('truncated multipart (no closing boundary, or cut inside the file)', async () => {
    const boundary = 'xTRUNCATEDx';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    const cut = Buffer.concat([Buffer.from(head), png.subarray(0, 20)]);
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    expect400(await api('POST', '/media', { token, body: new Uint8Array(cut), headers }), /truncated or malformed/);
    const noClose = Buffer.concat([Buffer.from(head), png, Buffer.from('\r\n')]);
    expect400(await api('POST', '/media', { token, body: new Uint8Array(noClose), headers }), /truncated or malformed/);
    // A complete body with the same framing is accepted, so it is the cut that is refused.
    const whole = Buffer.concat([Buffer.from(head), png, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    expect((await api('POST', '/media', { token, body: new Uint8Array(whole), headers })).status).toBe(200);
  });

  it('a file whose content is cut (corrupted image) is 400 too', async () => {
    expect400(
      await upload(token, png.subarray(0, png.length - 30), 'cut.png', 'image/png'),
      /^file: corrupted or truncated/,
    );
  });

  it('oversized: declared Content-Length over 50 MiB, and a streamed body over 50 MiB without a length', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024 + 1024, 7);
    expect400(await upload(token, big, 'big.png', 'image/png'), /larger than 52428800 bytes/);

    const boundary = 'xSTREAMEDx';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 1);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= 52) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${baseUrl()}/api/v1/author/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/larger than 52428800 bytes/) });
  });

  it('401 without a token and 404 for other methods', async () => {
    const res = await api('POST', '/media', { body: mediaForm(png) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const other = await fetch(`${baseUrl()}/api/v1/author/media`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(other.status, method).toBe(404);
      expect(await other.json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });
});
