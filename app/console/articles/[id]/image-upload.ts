import { formatBytes } from '../../components/format';

/**
 * An image dropped or pasted into the editor, sent to the console's upload route (the same
 * service and limits as POST /media) with XMLHttpRequest, which reports upload progress.
 * What can be told before uploading (size, type) is told without spending the media limit.
 */

const MAX_BYTES = 50 * 1024 * 1024;
const ACCEPTED = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'];

export interface Uploaded {
  snippet: string;
  byteSize: number;
  width: number;
  height: number;
}

/** Why this file will not be stored, in words, or null when it may be tried. */
export function refuseBeforeUpload(file: File, quotaLeft: number): string | null {
  if (file.type && !ACCEPTED.includes(file.type))
    return `${file.name} is not an image the service stores (${file.type}). Use JPEG, PNG, WebP, AVIF or GIF.`;
  if (file.size > MAX_BYTES)
    return `${file.name} is ${formatBytes(file.size)}: images may be at most 50 MiB. Make it smaller and try again.`;
  if (file.size > quotaLeft)
    return `${file.name} is ${formatBytes(file.size)}, more than what is left of today's media quota (${formatBytes(quotaLeft)}). Try again tomorrow (UTC).`;
  return null;
}

/** The route's sentence, with what to do instead for an animated image. */
function failure(error: string): string {
  return /animated/i.test(error)
    ? `${error} Animated images are stored as videos: store it from its address under Media, then insert it with the GIF island.`
    : error;
}

export function uploadImage(
  file: File,
  csrf: string,
  onProgress: (loaded: number, total: number) => void,
): Promise<Uploaded> {
  return new Promise((resolve, reject) => {
    const body = new FormData();
    body.append('file', file);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/console/media/upload');
    xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new Error('The upload did not reach the server. Check the connection and try again.'));
    xhr.onload = () => {
      let result: {
        ok?: boolean;
        error?: string;
        media?: { snippet: string; byte_size: number; width: number; height: number };
      } | null = null;
      try {
        result = JSON.parse(xhr.responseText);
      } catch {
        result = null;
      }
      if (result?.ok && result.media)
        resolve({
          snippet: result.media.snippet,
          byteSize: result.media.byte_size,
          width: result.media.width,
          height: result.media.height,
        });
      else reject(new Error(failure(result?.error ?? `The upload failed (HTTP ${xhr.status}).`)));
    };
    xhr.send(body);
  });
}
