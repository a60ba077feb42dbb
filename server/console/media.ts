import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { recentMediaRows, type MediaRecord } from '../data/media';
import { localMediaPath } from '../content/urls';
import { storeUploadOrGifVideo, type MediaAccount, type MediaDeps } from '../services/media';
import type { MediaJson } from '../services/media.schema';

/** The author's latest stored files, without the posters that belong to GIF videos. */
export function recentMedia(db: StatementRunner, accountId: string, limit = 60): Promise<MediaRecord[]> {
  return recentMediaRows(db, accountId, limit);
}

/** What to paste into an article for a stored file (an image, or the GIF island for `kind: gif`). */
export function markdownSnippet(media: Pick<MediaRecord, 'id' | 'kind'>): string {
  const url = localMediaPath(media.id);
  if (media.kind === 'gif') {
    return `<div class="dp-gif" data-gif="${media.id}"><video src="${url}" autoplay loop muted playsinline></video></div>`;
  }
  return `![](${url})`;
}

/** The console upload route's answer to a stored file (`ok: true` is the route's). */
interface ConsoleUploadAnswer {
  media: MediaJson & { snippet: string };
  /**
   * The file was already in the library, so that entry was used and nothing was stored or
   * charged: when it was stored (ISO 8601), under what name, and the sentence to show.
   */
  reused: { stored_at: string; file_name: string | null; notice: string } | null;
}

/**
 * A file from the maintainer's computer (the editor's and the media page's upload), stored or,
 * when the same file is already in the library, the entry it has: a second entry of the same
 * picture would only be told apart by its time, and the day's quota would pay for it twice.
 */
export async function storeConsoleUpload(
  deps: MediaDeps,
  account: MediaAccount,
  bytes: Buffer,
  fileName: string | null,
): Promise<ConsoleUploadAnswer> {
  const { media, existing } = await storeUploadOrGifVideo(deps, account, bytes, fileName);
  return {
    media: { ...media, snippet: markdownSnippet(media) },
    reused: existing && {
      stored_at: existing.storedAt,
      file_name: existing.fileName,
      notice: alreadyStoredNotice(existing.storedAt),
    },
  };
}

/** What the maintainer is told of a file that was already in the library (times in UTC, as every console time). */
function alreadyStoredNotice(storedAt: string): string {
  return `This file is already in your library (stored ${storedAt.slice(0, 16).replace('T', ' ')} UTC); the existing copy was used, and nothing was taken from today's media quota.`;
}
