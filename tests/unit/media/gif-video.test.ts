import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { animatedGifToMp4, chooseFfmpeg, defaultFfmpegPath, limitedCommand } from '../../../server/media/gif-video';
import { inspectAndNormalizeImage } from '../../../server/media/image';
import { readImage } from '../../support/image-corpus';
import { testMediaWork } from '../../support/media-work';
import { env } from '../../../server/foundation/env';

const read = readImage;

/** Top-level ISO-BMFF boxes, in file order. */
function boxes(mp4: Buffer): string[] {
  const types: string[] = [];
  for (let offset = 0; offset + 8 <= mp4.length;) {
    const size = mp4.readUInt32BE(offset);
    types.push(mp4.toString('latin1', offset + 4, offset + 8));
    if (size < 8) break;
    offset += size;
  }
  return types;
}

/** What ffmpeg itself reads back from the file (`ffmpeg -i` prints the stream list on stderr). */
function probe(mp4: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'probe-'));
  try {
    const file = join(dir, 'v.mp4');
    writeFileSync(file, mp4);
    const run = spawnSync(defaultFfmpegPath(), ['-hide_banner', '-i', file, '-f', 'null', '-'], { encoding: 'utf8' });
    return run.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function oddAnimatedGif(width: number, height: number): Promise<Buffer> {
  const frame = (colour: string) =>
    sharp({ create: { width, height, channels: 3, background: colour } })
      .png()
      .toBuffer();
  return sharp([await frame('#ff0000'), await frame('#00ff00'), await frame('#0000ff')], { join: { animated: true } })
    .gif({ delay: [100, 100, 100], loop: 0 })
    .toBuffer();
}

describe('animatedGifToMp4', () => {
  it('turns an animated GIF into a faststart H.264 yuv420p MP4 without audio, plus a poster', async () => {
    const gif = read('gif-animated-rotating-squares.gif');
    await expect(inspectAndNormalizeImage(gif)).rejects.toMatchObject({ problem: 'animated', format: 'gif' });

    const video = await animatedGifToMp4(gif);
    expect(video.mimeType).toBe('video/mp4');
    expect([video.width, video.height, video.frames]).toEqual([80, 80, 30]);
    const top = boxes(video.mp4);
    expect(top[0]).toBe('ftyp');
    expect(video.mp4.toString('latin1', 8, 12)).toBe('isom');
    expect(top.indexOf('moov')).toBeLessThan(top.indexOf('mdat')); // faststart: playable while downloading

    const info = probe(video.mp4);
    expect(info).toMatch(/Video: h264 \(High\).*yuv420p.*, 80x80/);
    expect(info).not.toMatch(/Audio:/);
    expect(info).toMatch(/frame=\s*\d+/);

    const poster = await sharp(video.poster.buffer).metadata();
    expect([poster.format, poster.width, poster.height, poster.pages ?? 1]).toEqual(['png', 80, 80, 1]);
    expect([video.poster.width, video.poster.height, video.poster.byteSize]).toEqual([
      80,
      80,
      video.poster.buffer.length,
    ]);
  });

  it('pads odd canvas sizes to even ones (yuv420p needs them)', async () => {
    const gif = await oddAnimatedGif(15, 9);
    const video = await animatedGifToMp4(gif);
    expect([video.width, video.height, video.frames]).toEqual([16, 10, 3]);
    expect(probe(video.mp4)).toMatch(/yuv420p.*, 16x10/);
    expect([video.poster.width, video.poster.height]).toEqual([15, 9]);
  });

  it('converts the minimal two-frame GIF of the corpus', async () => {
    const video = await animatedGifToMp4(read('crafted-gif-animated-2-frames.gif'));
    expect([video.width, video.height, video.frames]).toEqual([16, 16, 2]);
    expect(boxes(video.mp4)[0]).toBe('ftyp');
  });

  it('refuses non-GIF input and corrupt GIFs', async () => {
    await expect(animatedGifToMp4(read('webp-animated-rotating-squares.webp'))).rejects.toMatchObject({
      problem: 'unsupported',
      kind: 'invalid',
    });
    await expect(animatedGifToMp4(read('crafted-gif-truncated-half.gif'))).rejects.toMatchObject({
      problem: 'corrupt',
      kind: 'invalid',
    });
  });

  it('enforces frame, size and duration bounds before running ffmpeg', async () => {
    const gif = read('gif-animated-rotating-squares.gif');
    await expect(animatedGifToMp4(gif, { maxFrames: 10 })).rejects.toMatchObject({ problem: 'too_large' });
    await expect(animatedGifToMp4(gif, { maxSide: 64 })).rejects.toMatchObject({ problem: 'too_large' });
    await expect(animatedGifToMp4(gif, { maxDurationSeconds: 0.1 })).rejects.toMatchObject({ problem: 'too_large' });
    await expect(animatedGifToMp4(gif, { ffmpegPath: '/nonexistent/ffmpeg' })).rejects.toMatchObject({
      problem: 'conversion_failed',
    });
  });

  it('kills ffmpeg when it runs past its time budget', async () => {
    await expect(animatedGifToMp4(read('gif-animated-rotating-squares.gif'), { timeoutMs: 1 })).rejects.toMatchObject({
      problem: 'conversion_failed',
      message: expect.stringContaining('took too long'),
    });
  });
});

/**
 * A stand-in for ffmpeg that opens no file but its output: logs when it starts and ends and the
 * limits it runs under, and writes a few bytes where the MP4 would go (the last argument).
 */
function fakeFfmpeg(): { path: string; log: () => string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-ffmpeg-'));
  const path = join(dir, 'ffmpeg');
  const log = join(dir, 'log');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo "start cpu=$(ulimit -t) as=$(ulimit -v)" >> ${log}`,
      'sleep 0.2',
      'for last; do :; done',
      'printf fake > "$last"',
      `echo end >> ${log}`,
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return {
    path,
    log: () => readFileSync(log, 'utf8').trim().split('\n'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('GIF conversion: shared limits', () => {
  it('refuses a GIF over the frames x pixels budget before ffmpeg starts', async () => {
    const gif = read('gif-animated-rotating-squares.gif');
    await expect(
      animatedGifToMp4(gif, { maxFramePixels: 1000, ffmpegPath: '/nonexistent/ffmpeg' }),
    ).rejects.toMatchObject({
      problem: 'too_large',
      kind: 'invalid',
      message: expect.stringMatching(
        /^url: GIF too large to convert \(\d+x\d+ x \d+ frames = \d+ pixels, limit 1000\)/,
      ),
    });
  });

  it('runs one conversion at a time by default (GIF_CONVERSIONS_IN_FLIGHT), under CPU and memory limits', async () => {
    const fake = fakeFfmpeg();
    try {
      const gif = read('gif-animated-rotating-squares.gif');
      // The slots the composition root builds from GIF_CONVERSIONS_IN_FLIGHT, at its default.
      const { gifSlots } = testMediaWork({ gifConversionsInFlight: env.GIF_CONVERSIONS_IN_FLIGHT });
      expect(gifSlots.limit).toBe(1);
      const videos = await Promise.all(
        [0, 1, 2].map(() => animatedGifToMp4(gif, { ffmpegPath: fake.path, slots: gifSlots })),
      );
      for (const v of videos) expect(v.mp4.toString()).toBe('fake');
      const lines = fake.log();
      expect(lines.map((l) => l.split(' ')[0])).toEqual(['start', 'end', 'start', 'end', 'start', 'end']);
      expect(lines[0]).toBe(`start cpu=150 as=${2 * 1024 * 1024}`);
    } finally {
      fake.cleanup();
    }
  });

  it('without prlimit, a shell sets the same limits and execs ffmpeg with its arguments untouched', () => {
    const fake = fakeFfmpeg();
    const dir = mkdtempSync(join(tmpdir(), 'limited-'));
    try {
      const output = join(dir, 'out with space.mp4');
      const [command, args] = limitedCommand(fake.path, ['-i', 'x', output], false);
      expect(command).toBe('/bin/sh');
      const run = spawnSync(command, args, { encoding: 'utf8' });
      expect(run.status).toBe(0);
      expect(readFileSync(output, 'utf8')).toBe('fake');
      expect(fake.log()[0]).toBe(`start cpu=150 as=${2 * 1024 * 1024}`);
    } finally {
      fake.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prefers FFMPEG_PATH, then the system ffmpeg, and falls back to the npm binary', () => {
    const npm = () => '/npm/ffmpeg';
    expect(chooseFfmpeg('/opt/ffmpeg', () => true, npm)).toEqual({ path: '/opt/ffmpeg', source: 'FFMPEG_PATH' });
    expect(chooseFfmpeg(undefined, (p) => p === '/usr/bin/ffmpeg', npm)).toEqual({
      path: '/usr/bin/ffmpeg',
      source: 'system',
    });
    expect(chooseFfmpeg(undefined, () => false, npm)).toEqual({ path: '/npm/ffmpeg', source: 'npm' });
  });
});
