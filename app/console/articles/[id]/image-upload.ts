import { formatBytes } from '../../components/format';

/**
 * An image dropped, pasted or picked in the editor, sent to the console's upload route (the
 * same limits as an API upload; an animated GIF becomes a looping video for the GIF island) with XMLHttpRequest, which reports upload progress.
 * What can be told before uploading (size, type) is told without spending the media limit.
 */

const MAX_BYTES = 50 * 1024 * 1024;
const ACCEPTED = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'];

export interface Uploaded {
  snippet: string;
  byteSize: number;
  width: number;
  height: number;
  /**
   * The same file was already in the library: the route used that entry (the snippet names it)
   * and stored and charged nothing. When it was stored, its name then, and the sentence to show.
   */
  reused: { storedAt: string; fileName: string | null; notice: string } | null;
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

/** The suggested alternative text of an image: its file name without the extension. */
export function altFromFileName(name: string): string {
  return name.replace(/\.[a-z0-9]{1,5}$/i, '').trim();
}

/** The stored image's Markdown (`![](url)`) with the alternative text written in. */
export function withAltText(snippet: string, alt: string): string {
  const text = alt
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\[\]]/g, (c) => `\\${c}`);
  return snippet.replace(/^!\[\]\(/, () => `![${text}](`);
}

/** The route's sentence, with what to do instead for an animated image other than a GIF. */
function failure(error: string): string {
  return /animated/i.test(error)
    ? `${error} Of animated images, GIFs are stored (as looping videos): save the animation as a GIF and add that.`
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
    xhr.setRequestHeader('x-file-name', encodeURIComponent(file.name)); // for the library's labels
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new Error('The upload did not reach the server. Check the connection and try again.'));
    xhr.onload = () => {
      let result: {
        ok?: boolean;
        error?: string;
        media?: { snippet: string; byte_size: number; width: number; height: number };
        reused?: { stored_at: string; file_name: string | null; notice: string } | null;
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
          reused: result.reused
            ? { storedAt: result.reused.stored_at, fileName: result.reused.file_name, notice: result.reused.notice }
            : null,
        });
      else reject(new Error(failure(result?.error ?? `The upload failed (HTTP ${xhr.status}).`)));
    };
    xhr.send(body);
  });
}
