import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { recentMediaRows } from '../data/media-rows';
import type { MediaRecord } from '../model/media';
import { localMediaPath } from '../content/urls';
import { storeUploadOrGifVideo, type MediaAccount, type MediaDeps } from '../services/media/media-storage';
import type { MediaJson } from '../services/media/media.schema';

/** How many of the latest files the media page and the editor's pickers show. */
const RECENT_MEDIA = 60;

/**
 * The author's latest stored files, without the posters that belong to GIF videos: the media
 * page's list, and what the editor's pickers are made of (`editorLibrary`). Only hands the call
 * on: app/ may not import server/data (eslint.config.mjs `FLOORS`).
 */
export function recentMedia(db: StatementRunner, accountId: string): Promise<MediaRecord[]> {
  return recentMediaRows(db, accountId, RECENT_MEDIA);
}

/** A stored file as the editor's pickers show it (the island menu, the cover picker). */
export interface LibraryItem {
  id: string;
  kind: 'image' | 'gif';
  width: number;
  height: number;
  /** The file's name, when known (the file uploaded, or the last part of the address it came from). */
  name?: string | null;
  /** When it was stored (ISO 8601): with the name, what tells items apart, in any order. */
  storedAt?: string;
}

/** The author's latest stored files for the editor's pickers (the new-article page's too). */
export async function editorLibrary(db: StatementRunner, accountId: string): Promise<LibraryItem[]> {
  return (await recentMedia(db, accountId)).map((m) => ({
    id: m.id,
    kind: m.kind === 'gif' ? 'gif' : 'image',
    width: m.width,
    height: m.height,
    name: m.fileName ?? fileNameOfAddress(m.sourceUrl),
    storedAt: m.createdAt,
  }));
}

/** The last part of an address's path, as a file name; null when there is none. */
function fileNameOfAddress(address: string | null | undefined): string | null {
  if (!address) return null;
  try {
    const last = new URL(address).pathname.split('/').pop() ?? '';
    return decodeURIComponent(last) || null;
  } catch {
    return null;
  }
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
