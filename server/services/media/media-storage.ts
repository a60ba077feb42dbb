/**
 * Storing media for one author (the Media object, POST /media, POST /media/from-url; the
 * rehost service stores through `commitImage` too). Knows nothing of HTTP: callers hand over
 * bytes or a URL and the account; the limits the route already consumed stay with the route.
 *
 * One flow for every stored file, so a failure never leaves half a result behind:
 *   1. the daily quota is charged atomically with the stored byte count (refused → 429);
 *   2. the file(s) are written to storage;
 *   3. the row(s) are inserted in one statement.
 * A failure in 2 or 3 deletes whatever was written and refunds the quota: no row points at a
 * missing file, and no file stays without its row. The charge comes first so that two parallel
 * uploads can never both pass a quota that only one of them fits.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { StatementRunner } from '../../../db/statements';
import { findServableMediaRow, findStoredCopyRow, insertMediaRows } from '../../data/media-rows';
import { addMediaBytesWithin, mediaBytesToday, refundMediaBytes } from '../../data/usage-counters';
import { DomainError, invalid } from '../../foundation/errors';
import type { AllowList } from '../../media/address-policy';
import { animatedGifToMp4, type GifVideo } from '../../media/gif-video';
import { ImageError, inspectAndNormalizeImage, type NormalizedImage } from '../../media/image';
import { fetchRemoteMedia } from '../../media/remote-media';
import type { MediaStorage } from '../../media/storage';
import type { MediaWork } from '../../media/work';
import type { Authenticated } from '../../model/account';
import type { ServableMedia } from '../../model/media';
import { localMediaPath } from '../../content/urls';
import type { MediaJson } from './media.schema';

export type MediaAccount = Pick<Authenticated['account'], 'id' | 'mediaPerMin' | 'dailyMediaBytes'>;

/** What storing media needs, handed in by the composition root. */
export interface MediaDeps {
  db: StatementRunner;
  storage: MediaStorage;
  /** Parsed ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS for outbound fetches. */
  allowList: AllowList;
  /** The process's download turns, download memory and GIF conversion turns. */
  work: MediaWork;
}

/**
 * The daily media quota refuses a file (rate_limited): it is used up, or the file (`bytes`, what it
 * would store) does not fit in what is left. Its window describes the quota (bytes, what is left,
 * the next UTC midnight) rather than the minute window, so that the limit actually hit is the one
 * a client is told about; when the file does not fit, what is left is more than 0 and the message
 * says why the request was refused all the same.
 */
export class DailyQuotaExceededError extends DomainError {
  constructor(
    quota: number,
    used: number,
    /** Unix time (seconds) of the next UTC midnight. */ reset: number,
    bytes?: number,
  ) {
    const left = Math.max(0, quota - used);
    super(
      'rate_limited',
      bytes === undefined || left === 0
        ? `daily media quota of ${quota} bytes reached (${used} used today); it resets at midnight UTC`
        : `daily media quota: the file's ${bytes} bytes do not fit in the ${left} bytes left today (${used} of ${quota} used); it resets at midnight UTC`,
      {
        window: {
          limit: quota,
          remaining: left,
          reset,
          retryAfter: Math.max(1, reset - Math.floor(Date.now() / 1000)),
        },
      },
    );
    this.name = 'DailyQuotaExceededError';
  }
}

function nextUtcMidnight(now = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
}

/** The refusal of a charge of `bytes` that did not fit, with today's usage as it is now. */
async function quotaError(db: StatementRunner, account: MediaAccount, bytes: number): Promise<DailyQuotaExceededError> {
  const used = await mediaBytesToday(db, account.id).catch(() => account.dailyMediaBytes);
  return new DailyQuotaExceededError(account.dailyMediaBytes, used, nextUtcMidnight(), bytes);
}

/** Cheap check before any download or decode: refuses once nothing is left today. */
async function assertQuotaLeft(db: StatementRunner, account: MediaAccount): Promise<void> {
  const used = await mediaBytesToday(db, account.id);
  if (used >= account.dailyMediaBytes)
    throw new DailyQuotaExceededError(account.dailyMediaBytes, used, nextUtcMidnight());
}

// ---- Storing -----------------------------------------------------------------------------

interface PendingFile {
  id: string;
  kind: 'image' | 'gif';
  buffer: Buffer;
  mimeType: string;
  width: number;
  height: number;
  posterMediaId: string | null;
}

/** Where stored files came from: the address downloaded, or the name of a file added in the console. */
interface FileOrigin {
  sourceUrl: string | null;
  fileName?: string | null;
}

const sha256 = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');

/** Steps 1–3 of the header for one or more files that belong together (video + poster). */
async function commit(deps: MediaDeps, account: MediaAccount, files: PendingFile[], origin: FileOrigin): Promise<void> {
  const { db, storage } = deps;
  const total = files.reduce((sum, f) => sum + f.buffer.length, 0);
  if (!(await addMediaBytesWithin(db, account.id, total, account.dailyMediaBytes)))
    throw await quotaError(db, account, total);

  const attempted: string[] = [];
  try {
    for (const file of files) {
      attempted.push(file.id);
      await storage.put(file.id, file.buffer, file.mimeType);
    }
    // The poster row comes first: the video row names it.
    await insertMediaRows(
      db,
      account.id,
      files.map((f) => ({
        id: f.id,
        kind: f.kind,
        mimeType: f.mimeType,
        byteSize: f.buffer.length,
        width: f.width,
        height: f.height,
        sha256: sha256(f.buffer),
        posterMediaId: f.posterMediaId,
      })),
      { sourceUrl: origin.sourceUrl, fileName: origin.fileName ?? null },
    );
  } catch (err) {
    // Storage backends roll back their own partial put; deleting again is idempotent and also
    // covers the files written before the failing step.
    await Promise.allSettled(attempted.map((key) => storage.delete(key)));
    await refundMediaBytes(db, account.id, total).catch(() => undefined);
    throw err;
  }
}

/** Stores an already normalized image; throws DailyQuotaExceededError, StorageUnavailableError or a DB error. */
export async function commitImage(
  deps: MediaDeps,
  account: MediaAccount,
  image: NormalizedImage,
  sourceUrl: string | null = null,
  fileName: string | null = null,
): Promise<MediaJson> {
  const file: PendingFile = {
    id: randomUUID(),
    kind: 'image',
    buffer: image.buffer,
    mimeType: image.mimeType,
    width: image.width,
    height: image.height,
    posterMediaId: null,
  };
  await commit(deps, account, [file], { sourceUrl, fileName });
  return toMediaJson(file, null);
}

/** from-url: an animated GIF is stored as a muted MP4 (`kind: gif`, `<video>` plays it) plus its first frame. */
async function commitGifVideo(
  deps: MediaDeps,
  account: MediaAccount,
  video: GifVideo,
  sourceUrl: string | null,
  fileName: string | null = null,
): Promise<MediaJson> {
  const poster: PendingFile = {
    id: randomUUID(),
    kind: 'image',
    buffer: video.poster.buffer,
    mimeType: video.poster.mimeType,
    width: video.poster.width,
    height: video.poster.height,
    posterMediaId: null,
  };
  const clip: PendingFile = {
    id: randomUUID(),
    kind: 'gif',
    buffer: video.mp4,
    mimeType: video.mimeType,
    width: video.width,
    height: video.height,
    posterMediaId: poster.id,
  };
  await commit(deps, account, [poster, clip], { sourceUrl, fileName });
  return toMediaJson(clip, poster.id);
}

function toMediaJson(file: PendingFile, posterId: string | null): MediaJson {
  return {
    id: file.id,
    url: localMediaPath(file.id),
    kind: file.kind,
    mime_type: file.mimeType,
    byte_size: file.buffer.length,
    width: file.width,
    height: file.height,
    status: 'ready',
    poster_url: posterId ? localMediaPath(posterId) : null,
  };
}

// ---- The two routes' use cases -------------------------------------------------------------

/** POST /media: the bytes of field `file`. The type is sniffed from the bytes, never taken from the client. */
export async function storeUpload(deps: MediaDeps, account: MediaAccount, bytes: Buffer): Promise<MediaJson> {
  await assertQuotaLeft(deps.db, account);
  const image = await inspectAndNormalizeImage(bytes, { field: 'file' });
  return commitImage(deps, account, image);
}

/** What the console's upload stored, or the stored copy it used instead. */
interface ConsoleUpload {
  media: MediaJson;
  /**
   * When the file given was already in the account's library: the time (ISO 8601) and name of
   * the copy used instead of storing a second one. Null when the file was stored now.
   */
  existing: { storedAt: string; fileName: string | null } | null;
}

/**
 * The console editor's upload of a file from the maintainer's computer: like POST /media, except
 * that an animated GIF is stored the way from-url stores one (a looping video and its first
 * frame, for the GIF island), since a local file has no address to store it from. The file's
 * name is kept for the console's labels.
 *
 * A file already in the account's library is not stored again: the entry it has is handed back
 * (`existing`) and nothing is charged to the daily quota. Only the hash of the stored bytes is
 * kept (`media.sha256`), so the file is compared after it is normalized: the encoders give the
 * same bytes for the same input (sharp for every format, libx264 for the GIF's video, whatever
 * the thread count), and two files that differ only in what normalizing removes (metadata, a
 * stray trailer) are the same stored file. POST /media keeps storing every upload as it comes.
 */
export async function storeUploadOrGifVideo(
  deps: MediaDeps,
  account: MediaAccount,
  bytes: Buffer,
  fileName: string | null,
): Promise<ConsoleUpload> {
  await assertQuotaLeft(deps.db, account);
  let image: NormalizedImage;
  try {
    image = await inspectAndNormalizeImage(bytes, { field: 'file' });
  } catch (err) {
    if (err instanceof ImageError && err.problem === 'animated' && err.format === 'gif') {
      const video = await animatedGifToMp4(bytes, {
        field: 'file',
        slots: deps.work.gifSlots,
        ffmpegPath: deps.work.ffmpeg.path,
      });
      return (
        (await findStoredCopy(deps.db, account.id, 'gif', video.mp4)) ?? {
          media: await commitGifVideo(deps, account, video, null, fileName),
          existing: null,
        }
      );
    }
    throw err;
  }
  return (
    (await findStoredCopy(deps.db, account.id, 'image', image.buffer)) ?? {
      media: await commitImage(deps, account, image, null, fileName),
      existing: null,
    }
  );
}

/**
 * The account's own stored file of `kind` with exactly these stored bytes, as the console's
 * upload reuses it (the oldest, should two uploads of it have raced past this lookup).
 */
async function findStoredCopy(
  db: StatementRunner,
  accountId: string,
  kind: 'image' | 'gif',
  stored: Buffer,
): Promise<ConsoleUpload | null> {
  const row = await findStoredCopyRow(db, accountId, sha256(stored), kind);
  if (!row) return null;
  return {
    media: {
      id: row.id,
      url: localMediaPath(row.id),
      kind: row.kind,
      mime_type: row.mimeType,
      byte_size: row.byteSize,
      width: row.width,
      height: row.height,
      status: 'ready',
      poster_url: row.posterMediaId ? localMediaPath(row.posterMediaId) : null,
    },
    existing: { storedAt: row.createdAt, fileName: row.fileName },
  };
}

const LOCAL_MEDIA = /^\/api\/media(\/|$)/i;
const VIDEO_FILE = /\.(mp4|m4v|m4s|webm|mov|mkv|avi|wmv|flv|ogv|3gp|mpg|mpeg|ts|m3u8|mpd)$/i;

/**
 * POST /media/from-url. `ownHost` (the Host the request came to) lets an absolute URL of this
 * service's own media path be refused like the relative one: it is already stored here.
 */
export async function storeFromUrl(
  deps: MediaDeps,
  account: MediaAccount,
  rawUrl: string,
  ownHost?: string | null,
): Promise<MediaJson> {
  const url = rawUrl.trim();
  if (url === '') throw invalid('url: must not be empty');
  if (LOCAL_MEDIA.test(url)) throw alreadyStored();
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined; // safeFetch names the problem ("not a valid URL")
  }
  if (parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) {
    if (ownHost && parsed.host.toLowerCase() === ownHost.toLowerCase() && LOCAL_MEDIA.test(parsed.pathname))
      throw alreadyStored();
    if (VIDEO_FILE.test(parsed.pathname)) {
      throw invalid('url: direct video files are not accepted; show videos through a provider embed (iframe)');
    }
  }
  await assertQuotaLeft(deps.db, account);
  const remote = await fetchRemoteMedia(url, deps.work, {
    fetch: { allowList: deps.allowList },
    animatedGif: 'convert',
    field: 'url',
  });
  return remote.kind === 'gif'
    ? commitGifVideo(deps, account, remote.video, remote.sourceUrl)
    : commitImage(deps, account, remote.image, remote.sourceUrl);
}

const alreadyStored = () =>
  invalid(
    'url: an /api/media/{uuid} path is already stored here; put it into the Markdown as is, or its id into cover_asset_id',
  );

// ---- Serving ------------------------------------------------------------------------------

/** Any stored file of a live account by id. Only hands the call on: server/http may not import server/data. */
export function findServableMedia(db: StatementRunner, id: string): Promise<ServableMedia | null> {
  return findServableMediaRow(db, id);
}
