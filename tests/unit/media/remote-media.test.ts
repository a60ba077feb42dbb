import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../../server/media/address-policy';
import { fetchRemoteMedia } from '../../../server/media/remote-media';
import { readImage } from '../../support/image-corpus';
import { testMediaWork } from '../../support/media-work';
import { startLocalServer, type LocalServer } from './helpers/local-server';

const read = readImage;
const fetchOpts = { allowList: parseAllowList('127.0.0.0/8') };
const work = testMediaWork();

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    const file = decodeURIComponent(req.url!.slice(1));
    // Deliberately lie about the type: the content decides, never the header.
    res.writeHead(200, { 'content-type': 'image/png' }).end(read(file));
  });
});
afterAll(() => server.close());

describe('fetchRemoteMedia', () => {
  it('stores a still image', async () => {
    const media = await fetchRemoteMedia(`${server.origin}/jpeg-baseline.jpg`, work, { fetch: fetchOpts });
    expect(media.kind).toBe('image');
    if (media.kind !== 'image') return;
    expect([media.image.mimeType, media.image.width, media.image.height]).toEqual(['image/jpeg', 200, 133]);
    expect(media.sourceUrl).toBe(`${server.origin}/jpeg-baseline.jpg`);
  });

  it('turns an animated GIF into MP4 + poster (as from-url stores it)', async () => {
    const media = await fetchRemoteMedia(`${server.origin}/gif-animated-rotating-squares.gif`, work, {
      fetch: fetchOpts,
    });
    expect(media.kind).toBe('gif');
    if (media.kind !== 'gif') return;
    expect([media.video.mimeType, media.video.width, media.video.height]).toEqual(['video/mp4', 80, 80]);
    expect(media.video.poster.mimeType).toBe('image/png');
  });

  it('refuses an animated GIF when asked to (rehost into <img>)', async () => {
    await expect(
      fetchRemoteMedia(`${server.origin}/gif-animated-rotating-squares.gif`, work, {
        fetch: fetchOpts,
        animatedGif: 'refuse',
      }),
    ).rejects.toMatchObject({ kind: 'unsupported', problem: 'animated' });
  });

  it('refuses other animated formats as unsupported (422 animated_image over HTTP)', async () => {
    for (const file of [
      'webp-animated-rotating-squares.webp',
      'png-apng-animated.png',
      'avif-sequence-animated.avif',
    ]) {
      await expect(fetchRemoteMedia(`${server.origin}/${file}`, work, { fetch: fetchOpts })).rejects.toMatchObject({
        kind: 'unsupported',
      });
    }
  });

  it('refuses unsupported content and forbidden addresses as invalid input naming the field', async () => {
    await expect(
      fetchRemoteMedia(`${server.origin}/svg-xss-nested-use-xlink.svg`, work, { fetch: fetchOpts }),
    ).rejects.toMatchObject({
      kind: 'invalid',
      message: 'url: not a supported image (svg)',
    });
    await expect(fetchRemoteMedia(`${server.origin}/png-rgb.png`, work, { field: 'cover_url' })).rejects.toMatchObject({
      kind: 'invalid',
      problem: 'forbidden_address',
      message: 'cover_url: address not allowed',
    });
  });
});
