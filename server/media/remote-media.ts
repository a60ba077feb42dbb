/**
 * URL → media ready to store: the shared core of POST /media/from-url (and, with
 * `animatedGif: 'refuse'`, of rehost). Fetch through the SSRF guard, then the same checks as an
 * upload; an animated GIF becomes MP4 + poster when the caller accepts that (from-url does, for
 * the GIF island).
 */
import { animatedGifToMp4, type GifVideo, type GifVideoLimits } from './gif-video';
import { ImageError, inspectAndNormalizeImage, type ImageLimits, type NormalizedImage } from './image';
import { holdingDownload } from './download-memory';
import { undiciConnector } from './fetch/undici-connector';
import { safeFetch, type SafeFetchOptions } from './safe-fetch';
import type { MediaWork } from './work';

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

/** The file's bytes stay claimed from the process's download memory until it is decoded. */
export async function fetchRemoteMedia(
  url: string,
  work: MediaWork,
  options: RemoteMediaOptions = {},
): Promise<RemoteMedia> {
  const field = options.field ?? 'url';
  return holdingDownload(
    options.fetch?.connector ?? undiciConnector,
    (connector) => work.downloads.run(() => safeFetch(url, { field, ...options.fetch, connector })),
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
            video: await animatedGifToMp4(buffer, {
              field,
              slots: work.gifSlots,
              ffmpegPath: work.ffmpeg.path,
              ...options.gif,
            }),
            sourceUrl: finalUrl,
          };
        }
        throw err;
      }
    },
    work.memory,
  );
}
