/**
 * Animated GIF → muted H.264 MP4 + poster frame, for the GIF island: from-url stores an
 * animated GIF as `kind: gif`, `video/mp4`, because the island's `<video src>` cannot play a GIF.
 *
 * ffmpeg parses untrusted files, so the binary should be a maintained one: FFMPEG_PATH, else the
 * system's /usr/bin/ffmpeg (Debian's `ffmpeg` package, which gets security updates), else the
 * static build of @ffmpeg-installer/ffmpeg (old, but a plain `npm install` provides it, so a fresh
 * machine still converts). Which one ran is logged at first use.
 *
 * Files go through a private temp dir because `+faststart` rewrites the output (moov atom first,
 * so playback starts before the download ends), which a pipe cannot do. Everything is bounded:
 * canvas size, frame count, duration, frames × pixels (checked before ffmpeg starts), output
 * bytes, wall time, and the child's CPU time and address space (prlimit, or the shell's ulimit);
 * at most GIF_CONVERSIONS_IN_FLIGHT conversions run at once in the process, the others wait.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Metadata } from 'sharp';
import type { ConcurrencyLimit } from '../foundation/concurrency-limit';
import { env } from '../foundation/env';
import { ImageError } from './image/image-error';
import { sniffImage } from './image/sniff';

export interface GifVideoLimits {
  /** Largest canvas side; H.264 level 5.1 and every browser decoder handle 4096. */
  maxSide?: number;
  maxFrames?: number;
  /**
   * Frames × canvas pixels: the decoding and encoding work. Side and frame caps alone would admit
   * 4096 × 4096 × 2000 frames (33.5 billion pixels) for one request.
   */
  maxFramePixels?: number;
  maxDurationSeconds?: number;
  maxOutputBytes?: number;
  timeoutMs?: number;
  /** The ffmpeg to run; default: FFMPEG_PATH, /usr/bin/ffmpeg, or npm's (`chooseFfmpeg`). */
  ffmpegPath?: string;
  /**
   * The process's conversion turns (GIF_CONVERSIONS_IN_FLIGHT, from the composition root's
   * media work, media/work.ts); without them the conversion runs at once.
   */
  slots?: ConcurrencyLimit;
  field?: string;
}

export interface GifVideo {
  mp4: Buffer;
  mimeType: 'video/mp4';
  /** Video size: the GIF canvas rounded up to even numbers (yuv420p needs even sides). */
  width: number;
  height: number;
  frames: number;
  poster: { buffer: Buffer; mimeType: 'image/png'; width: number; height: number; byteSize: number };
}

const require = createRequire(import.meta.url);

/** Resolved lazily: the installer package throws at load time on unsupported platforms. */
export const defaultFfmpegPath = (): string => (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** 1000 × 1000 × 1000 frames, or a 480 × 270 clip of 2000 frames four times over. */
const MAX_FRAME_PIXELS = 1_000_000_000;
/** CPU seconds of one child: its 60 s of wall time on two threads, with room to spare. */
const FFMPEG_CPU_SECONDS = 150;
/** Address space of one child; x264 at 4096 × 4096 with two threads stays well below. */
const FFMPEG_ADDRESS_SPACE_BYTES = 2 * 1024 * 1024 * 1024;
const SYSTEM_FFMPEG = '/usr/bin/ffmpeg';

export interface FfmpegChoice {
  path: string;
  source: 'FFMPEG_PATH' | 'system' | 'npm';
}

/** FFMPEG_PATH, else the system's maintained ffmpeg when it is there, else the npm binary. */
export function chooseFfmpeg(
  configured: string | undefined,
  isExecutable: (path: string) => boolean = executable,
  npmPath: () => string = defaultFfmpegPath,
): FfmpegChoice {
  if (configured) return { path: configured, source: 'FFMPEG_PATH' };
  if (isExecutable(SYSTEM_FFMPEG)) return { path: SYSTEM_FFMPEG, source: 'system' };
  return { path: npmPath(), source: 'npm' };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function animatedGifToMp4(gif: Buffer, limits: GifVideoLimits = {}): Promise<GifVideo> {
  const field = limits.field ?? 'url';
  const maxSide = limits.maxSide ?? 4096;
  const maxFrames = limits.maxFrames ?? 2000;
  const maxDuration = limits.maxDurationSeconds ?? 120;
  const maxOutputBytes = limits.maxOutputBytes ?? 50 * 1024 * 1024;

  const sniffed = await sniffImage(gif);
  if (!sniffed.ok || sniffed.format !== 'gif') throw new ImageError('unsupported', `${field}: not a GIF`);
  let meta: Metadata;
  try {
    meta = await sharp(gif, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageError('corrupt', `${field}: corrupted or truncated GIF`);
  }
  const { width = 0, height = 0 } = meta;
  const frames = meta.pages ?? 1;
  const durationMs = (meta.delay ?? []).reduce((sum: number, d: number) => sum + (d > 10 ? d : 100), 0);
  if (width < 1 || height < 1) throw new ImageError('corrupt', `${field}: corrupted GIF`);
  if (width > maxSide || height > maxSide) {
    throw new ImageError('too_large', `${field}: GIF too large (${width}x${height}, limit ${maxSide} per side)`);
  }
  if (frames > maxFrames)
    throw new ImageError('too_large', `${field}: GIF has too many frames (${frames}, limit ${maxFrames})`);
  const framePixels = width * height * frames;
  const maxFramePixels = limits.maxFramePixels ?? MAX_FRAME_PIXELS;
  if (framePixels > maxFramePixels) {
    throw new ImageError(
      'too_large',
      `${field}: GIF too large to convert (${width}x${height} x ${frames} frames = ${framePixels} pixels, limit ${maxFramePixels})`,
    );
  }
  if (durationMs > maxDuration * 1000) {
    throw new ImageError(
      'too_large',
      `${field}: GIF plays too long (${Math.round(durationMs / 1000)} s, limit ${maxDuration} s)`,
    );
  }

  const poster = await posterFrame(gif, field);
  const dir = await mkdtemp(join(tmpdir(), 'gif2mp4-'));
  try {
    const input = join(dir, 'in.gif');
    const output = join(dir, 'out.mp4');
    await writeFile(input, gif);
    const binary = limits.ffmpegPath ?? chooseFfmpeg(env.FFMPEG_PATH).path;
    const convert = () =>
      runFfmpeg(
        binary,
        ffmpegArgs(input, output, maxFrames, maxDuration, maxOutputBytes),
        limits.timeoutMs ?? 60_000,
        field,
      );
    await (limits.slots ? limits.slots.run(convert) : convert());
    const mp4 = await readFile(output);
    // -fs stops writing at the cap and still finalizes the file: a file that reached it is cut short.
    if (mp4.length >= maxOutputBytes - 64 * 1024)
      throw new ImageError('too_large', `${field}: converted video too large`);
    return { mp4, mimeType: 'video/mp4', width: width + (width % 2), height: height + (height % 2), frames, poster };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function ffmpegArgs(input: string, output: string, maxFrames: number, maxDuration: number, maxBytes: number): string[] {
  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'gif',
    '-i',
    input,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    '-map_metadata',
    '-1',
    // yuv420p (the only chroma format every browser H.264 decoder takes) needs even sides: pad, never crop.
    '-vf',
    'pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-vsync',
    'vfr', // keep the GIF's own frame delays instead of duplicating frames
    '-movflags',
    '+faststart',
    '-frames:v',
    String(maxFrames),
    '-t',
    String(maxDuration),
    '-fs',
    String(maxBytes),
    '-threads',
    '2',
    output,
  ];
}

/**
 * The child's CPU time and address space are capped by the kernel (RLIMIT_CPU, RLIMIT_AS): a
 * decoder bug that spins or allocates without end is killed by the kernel whatever our timer does.
 * prlimit when the machine has it, else a shell that sets the limits and execs ffmpeg.
 */
export function limitedCommand(path: string, args: string[], hasPrlimit = executable(PRLIMIT)): [string, string[]] {
  if (hasPrlimit) {
    return [PRLIMIT, [`--cpu=${FFMPEG_CPU_SECONDS}`, `--as=${FFMPEG_ADDRESS_SPACE_BYTES}`, '--', path, ...args]];
  }
  const limits = `ulimit -t ${FFMPEG_CPU_SECONDS} && ulimit -v ${FFMPEG_ADDRESS_SPACE_BYTES / 1024} && exec "$0" "$@"`;
  return ['/bin/sh', ['-c', limits, path, ...args]];
}
const PRLIMIT = '/usr/bin/prlimit';

function runFfmpeg(path: string, args: string[], timeoutMs: number, field: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = limitedCommand(path, args);
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new ImageError('conversion_failed', `${field}: GIF conversion unavailable (${err.message})`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const why = signal ? 'took too long' : `ffmpeg exited with ${code}: ${stderr.trim().split('\n').pop() ?? ''}`;
      reject(new ImageError('conversion_failed', `${field}: could not convert the GIF (${why})`));
    });
  });
}

async function posterFrame(gif: Buffer, field: string): Promise<GifVideo['poster']> {
  try {
    const { data, info } = await sharp(gif, { pages: 1, page: 0, limitInputPixels: 50_000_000 })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { buffer: data, mimeType: 'image/png', width: info.width, height: info.height, byteSize: data.length };
  } catch {
    throw new ImageError('corrupt', `${field}: corrupted or truncated GIF`);
  }
}
