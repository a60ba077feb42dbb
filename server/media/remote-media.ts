/**
 * URL → media ready to store: the shared core of POST /media/from-url (and, with
 * `animatedGif: 'refuse'`, of rehost). Fetch through the SSRF guard, then the same checks as an
 * upload; an animated GIF becomes MP4 + poster when the caller accepts that (from-url does, for
 * the GIF island).
 */
import { ConcurrencyLimit } from '../concurrency-limit';
import { env } from '../env';
import { animatedGifToMp4, type GifVideo, type GifVideoLimits } from './gif-video';
import { ImageError, inspectAndNormalizeImage, type ImageLimits, type NormalizedImage } from './image';
import { holdingDownload } from './download-memory';
import { undiciConnector } from './fetch/undici-connector';
import { safeFetch, type SafeFetchOptions } from './safe-fetch';

export type RemoteMedia =
  { kind: 'image'; image: NormalizedImage; sourceUrl: string } | { kind: 'gif'; video: GifVideo; sourceUrl: string };

export interface RemoteMediaOptions {
  fetch?: SafeFetchOptions;
  image?: ImageLimits;
  gif?: GifVideoLimits;
  /** 'convert' (from-url): animated GIF → MP4; 'refuse': 422 animated_image like any animation. */
  animatedGif?: 'convert' | 'refuse';
  /** Request field named in error messages. */
  field?: string;
}

/**
 * Downloads in flight in this process (from-url and rehost together): MEDIA_DOWNLOADS_IN_FLIGHT
 * bounds how many run whatever the number of writes; the bytes they hold are bounded by
 * download-memory.ts.
 * On globalThis: the launcher's code and the code Next loads are separate module instances.
 */
const shared = globalThis as unknown as { __publishingMediaDownloads?: ConcurrencyLimit };
export function mediaDownloads(): ConcurrencyLimit {
  shared.__publishingMediaDownloads ??= new ConcurrencyLimit(env.MEDIA_DOWNLOADS_IN_FLIGHT);
  return shared.__publishingMediaDownloads;
}

/** The file's bytes stay claimed from the process's download memory until it is decoded. */
export async function fetchRemoteMedia(url: string, options: RemoteMediaOptions = {}): Promise<RemoteMedia> {
  const field = options.field ?? 'url';
  return holdingDownload(
    options.fetch?.connector ?? undiciConnector,
    (connector) => mediaDownloads().run(() => safeFetch(url, { field, ...options.fetch, connector })),
    async ({ buffer, finalUrl }): Promise<RemoteMedia> => {
      try {
        const image = await inspectAndNormalizeImage(buffer, { field, ...options.image });
        return { kind: 'image', image, sourceUrl: finalUrl };
      } catch (err) {
        if (
          err instanceof ImageError &&
          err.problem === 'animated' &&
          err.format === 'gif' &&
          (options.animatedGif ?? 'convert') === 'convert'
        ) {
          return {
            kind: 'gif',
            video: await animatedGifToMp4(buffer, { field, ...options.gif }),
            sourceUrl: finalUrl,
          };
        }
        throw err;
      }
    },
  );
}
