import { ConcurrencyLimit } from '../foundation/concurrency-limit';
import { unavailable } from '../foundation/errors';
import { ByteBudget } from './download-budget';
import { chooseFfmpeg, type FfmpegChoice } from './gif-video';

/**
 * What a serving thread's media work shares, built once per thread by the composition root
 * (runtime/create-app.ts: the REST thread and the console thread each build theirs, so a process
 * holds at most twice each bound) and handed to whoever downloads or converts: how many
 * downloads run at once (MEDIA_DOWNLOADS_IN_FLIGHT, from-url and rehost together), how many bytes
 * they may hold (MEDIA_DOWNLOAD_MEMORY_MB, download-memory.ts), how many GIF conversions run at
 * once (GIF_CONVERSIONS_IN_FLIGHT) and which ffmpeg runs them.
 */
export interface MediaWork {
  downloads: ConcurrencyLimit;
  memory: ByteBudget;
  gifSlots: ConcurrencyLimit;
  ffmpeg: FfmpegChoice;
}

export interface MediaWorkSettings {
  downloadsInFlight: number;
  downloadMemoryBytes: number;
  gifConversionsInFlight: number;
  /** FFMPEG_PATH, if set. */
  ffmpegPath?: string;
}

/**
 * GIFs that may wait for an ffmpeg slot, per slot. Each holds its file (up to 50 MiB) while it
 * waits, outside the download budget; past this the upload is answered 503 at once.
 */
export const GIF_WAITING_PER_SLOT = 4;

export function createMediaWork(settings: MediaWorkSettings): MediaWork {
  return {
    downloads: new ConcurrencyLimit(settings.downloadsInFlight),
    memory: new ByteBudget(settings.downloadMemoryBytes),
    gifSlots: new ConcurrencyLimit(settings.gifConversionsInFlight, {
      maxWaiting: GIF_WAITING_PER_SLOT * settings.gifConversionsInFlight,
      full: () => unavailable('GIF conversions are backed up; retry shortly'),
    }),
    ffmpeg: chooseFfmpeg(settings.ffmpegPath),
  };
}
