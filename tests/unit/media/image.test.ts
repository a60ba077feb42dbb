import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { manifest, readImage, type ManifestEntry } from '../../support/image-corpus';
import { describe, expect, it } from 'vitest';
import { ImageError, inspectAndNormalizeImage, MAX_IMAGE_PIXELS } from '../../../server/media/image';
import { pngFrameCount } from '../../../server/media/image/containers';

const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'avif', 'gif']);

const read = readImage;

async function outcome(buffer: Buffer) {
  try {
    return { ok: true as const, image: await inspectAndNormalizeImage(buffer) };
  } catch (err) {
    if (!(err instanceof ImageError)) throw err;
    return { ok: false as const, error: err };
  }
}

/** What the manifest flags call for (POST /media's answer; bombs over the pixel cap are refused too). */
function expected(entry: ManifestEntry): 'stored' | 'animated' | 'bad_request' {
  if (!ACCEPTED.has(entry.format) || entry.valid !== true) return 'bad_request';
  if (entry.animated) return 'animated';
  if ((entry.width ?? 0) * (entry.height ?? 0) > MAX_IMAGE_PIXELS) return 'bad_request';
  return 'stored';
}

describe('image corpus: every manifest file gets the answer its flags call for', () => {
  it('covers the whole manifest', () => {
    expect(manifest.files.length).toBe(236);
  });

  it.each(manifest.files.map((entry) => [entry.file, expected(entry), entry] as const))(
    '%s → %s',
    async (file, want, entry) => {
      const result = await outcome(read(file));
      if (want === 'stored') {
        expect(result.ok, result.ok ? '' : result.error.message).toBe(true);
        if (!result.ok) return;
        const { image } = result;
        expect(image.format).toBe(entry.format);
        expect(image.byteSize).toBe(image.buffer.length);
        const out = await sharp(image.buffer).metadata();
        expect(out.format === 'heif' ? 'avif' : out.format).toBe(entry.format);
        expect([out.width, out.height]).toEqual([image.width, image.height]);
        // Manifest sizes are before EXIF rotation; orientations 5-8 swap the sides.
        const inOrientation = (await sharp(read(file)).metadata()).orientation ?? 1;
        const [w, h] = inOrientation >= 5 ? [entry.height, entry.width] : [entry.width, entry.height];
        expect([image.width, image.height]).toEqual([w, h]);
        expect(out.exif).toBeUndefined();
        expect(out.xmp).toBeUndefined();
        expect(out.orientation).toBeUndefined();
      } else if (want === 'animated') {
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.problem).toBe('animated');
        expect(result.error.kind).toBe('unsupported');
        expect(result.error.format).toBe(entry.format);
      } else {
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.kind).toBe('invalid');
        expect(result.error.message).toMatch(/^file: /);
      }
    },
  );

  it('names what a refused file is', async () => {
    const svg = await outcome(read('crafted-svg-script-named.png'));
    expect(!svg.ok && svg.error.message).toBe('file: not a supported image (svg)');
    const html = await outcome(read('crafted-html-named.png'));
    expect(!html.ok && html.error.message).toBe('file: not a supported image (html)');
    const heic = await outcome(read('heic-static.heic'));
    expect(!heic.ok && heic.error.message).toBe('file: not a supported image (heic)');
    const empty = await outcome(read('crafted-empty.png'));
    expect(!empty.ok && empty.error.problem).toBe('empty');
    const truncated = await outcome(read('crafted-jpeg-truncated-half.jpg'));
    expect(!truncated.ok && truncated.error.message).toMatch(/corrupted or truncated image \(.*premature end/);
  });

  it('refuses text and video content sent under image names', async () => {
    for (const bytes of [
      Buffer.from('just some text\n'),
      Buffer.from('<!doctype html><p>hi'),
      Buffer.from('{"a":1}'),
    ]) {
      const result = await outcome(bytes);
      expect(!result.ok && result.error.problem).toBe('unsupported');
    }
    const mp4 = Buffer.concat([
      Buffer.from('0000001c667479706d703432', 'hex'),
      Buffer.from('mp42isomavc1'),
      Buffer.alloc(64),
    ]);
    const video = await outcome(mp4);
    expect(!video.ok && video.error.message).toMatch(/not a supported image \(mp4\)/);
  });
});

/** A PNG whose IHDR declares width×height over a few bytes of deflated zero rows. */
function craftBombPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width * 3 + 1))), // first row only
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('decompression bombs', () => {
  it('refuses a tiny PNG declaring 60000x60000 pixels before decoding it', async () => {
    const bomb = craftBombPng(60_000, 60_000);
    expect(bomb.length).toBeLessThan(1024);
    const rssBefore = process.memoryUsage().rss;
    const result = await outcome(bomb);
    expect(!result.ok && result.error.problem).toBe('too_large');
    expect(!result.ok && result.error.message).toBe('file: image too large (60000x60000 pixels, limit 50 megapixels)');
    // 60000² RGB would need 10 GB decoded; nothing close to that was allocated.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('honours a lower pixel limit passed by the caller', async () => {
    const png = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    await expect(inspectAndNormalizeImage(png, { maxPixels: 5_000 })).rejects.toMatchObject({ problem: 'too_large' });
    await expect(inspectAndNormalizeImage(png, { maxBytes: 10 })).rejects.toMatchObject({ problem: 'too_large' });
  });
});

describe('privacy and orientation', () => {
  /** 40x20: left half red, right half blue, EXIF orientation 6 ("rotate 90° clockwise") and GPS. */
  async function craftPhoto(format: 'jpeg' | 'png' | 'webp') {
    const red = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const base = sharp({ create: { width: 40, height: 20, channels: 3, background: '#0000ff' } })
      .composite([{ input: red, left: 0, top: 0 }])
      .withExif({
        IFD0: { Make: 'SecretCam', Orientation: '6' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2400/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 17/1 4000/100',
        },
      })
      .withMetadata({ orientation: 6 });
    return base.toFormat(format, format === 'jpeg' ? { quality: 95 } : {}).toBuffer();
  }

  // AVIF is left out: libheif stores orientation as irot/imir boxes that sharp neither writes
  // from EXIF nor reports, so no input with a pending rotation can be crafted here.
  it.each(['jpeg', 'png', 'webp'] as const)('%s: bakes the orientation and strips EXIF/GPS', async (format) => {
    const input = await craftPhoto(format);
    const inMeta = await sharp(input).metadata();
    expect(inMeta.orientation).toBe(6);
    expect(inMeta.exif?.includes(Buffer.from('SecretCam'))).toBe(true);

    const image = await inspectAndNormalizeImage(input);
    expect(image.format).toBe(format);
    expect([image.width, image.height]).toEqual([20, 40]);
    const outMeta = await sharp(image.buffer).metadata();
    expect(outMeta.exif).toBeUndefined();
    expect(outMeta.orientation).toBeUndefined();
    expect(image.buffer.includes(Buffer.from('SecretCam'))).toBe(false);
    expect(image.buffer.includes(Buffer.from('GPS'))).toBe(false);

    // Rotated 90° clockwise, the red left half is now on top.
    const { data, info } = await sharp(image.buffer).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => (y * 20 + x) * info.channels;
    const pixel = (x: number, y: number) => [...data.subarray(at(x, y), at(x, y) + 3)];
    expect(pixel(10, 5)[0]).toBeGreaterThan(200);
    expect(pixel(10, 5)[2]).toBeLessThan(60);
    expect(pixel(10, 35)[2]).toBeGreaterThan(200);
    expect(pixel(10, 35)[0]).toBeLessThan(60);
  });

  it('avif: strips EXIF/GPS', async () => {
    const input = await sharp({ create: { width: 16, height: 8, channels: 3, background: '#0f0' } })
      .withExif({ IFD0: { Make: 'SecretCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' } })
      .avif()
      .toBuffer();
    expect(input.includes(Buffer.from('SecretCam'))).toBe(true);
    const image = await inspectAndNormalizeImage(input);
    expect([image.format, image.width, image.height]).toEqual(['avif', 16, 8]);
    expect(image.buffer.includes(Buffer.from('SecretCam'))).toBe(false);
    expect((await sharp(image.buffer).metadata()).exif).toBeUndefined();
  });

  it('drops script payloads hidden in metadata', async () => {
    for (const file of ['jpeg-xss-in-metadata.jpg', 'png-xss-in-metadata.png']) {
      const input = read(file);
      expect(/<script|alert\(|onerror/i.test(input.toString('latin1'))).toBe(true);
      const image = await inspectAndNormalizeImage(input);
      expect(/<script|alert\(|onerror/i.test(image.buffer.toString('latin1'))).toBe(false);
    }
  });
});

describe('container probes', () => {
  it('counts APNG frames only from an acTL placed before IDAT', () => {
    expect(pngFrameCount(read('crafted-apng-2-frames.png'))).toBe(2);
    expect(pngFrameCount(read('crafted-apng-single-frame.png'))).toBe(1);
    expect(pngFrameCount(read('png-apng-animated.png'))).toBe(20);
    expect(pngFrameCount(read('png-rgb.png'))).toBe(1);
    expect(pngFrameCount(Buffer.from('not a png'))).toBe(1);
  });
});
