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
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { DomainError, invalid } from '../errors';
import type { AllowList } from '../media/address-policy';
import { animatedGifToMp4, type GifVideo } from '../media/gif-video';
import { ImageError, inspectAndNormalizeImage, type NormalizedImage } from '../media/image';
import { fetchRemoteMedia } from '../media/remote-media';
import type { MediaStorage } from '../media/storage';
import { dailyMediaBytesUsed, tryAddDailyMediaBytes } from './limits';
import type { Authenticated } from './tokens';
import { localMediaPath } from '../content/urls';
import type { MediaJson } from './media.schema';

export type MediaAccount = Pick<Authenticated['account'], 'id' | 'mediaPerMin' | 'dailyMediaBytes'>;

export interface MediaDeps {
  em: EntityManager;
  storage: MediaStorage;
  /** Parsed ALLOWED_PRIVATE_ADDRESSES for outbound fetches. */
  allowList: AllowList;
}

/**
 * The daily media quota is used up (rate_limited). Its window describes the quota (bytes, what is
 * left, the next UTC midnight) rather than the minute window, so that the limit actually hit is the
 * one a client is told about.
 */
export class DailyQuotaExceededError extends DomainError {
  constructor(quota: number, used: number, /** Unix time (seconds) of the next UTC midnight. */ reset: number) {
    super(
      'rate_limited',
      `daily media quota of ${quota} bytes reached (${used} used today); it resets at midnight UTC`,
      {
        window: {
          limit: quota,
          remaining: Math.max(0, quota - used),
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

async function quotaError(em: EntityManager, account: MediaAccount): Promise<DailyQuotaExceededError> {
  const used = await dailyMediaBytesUsed(em, account.id).catch(() => account.dailyMediaBytes);
  return new DailyQuotaExceededError(account.dailyMediaBytes, used, nextUtcMidnight());
}

/** Cheap check before any download or decode: refuses once nothing is left today. */
async function assertQuotaLeft(em: EntityManager, account: MediaAccount): Promise<void> {
  const used = await dailyMediaBytesUsed(em, account.id);
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
  const { em, storage } = deps;
  const total = files.reduce((sum, f) => sum + f.buffer.length, 0);
  if (!(await tryAddDailyMediaBytes(em, account.id, total, account.dailyMediaBytes)))
    throw await quotaError(em, account);

  const attempted: string[] = [];
  try {
    for (const file of files) {
      attempted.push(file.id);
      await storage.put(file.id, file.buffer, file.mimeType);
    }
    await insertRows(em, account.id, files, origin);
  } catch (err) {
    // Storage backends roll back their own partial put; deleting again is idempotent and also
    // covers the files written before the failing step.
    await Promise.allSettled(attempted.map((key) => storage.delete(key)));
    await refundDailyMediaBytes(em, account.id, total).catch(() => undefined);
    throw err;
  }
}

/** One statement for all rows: they appear together or not at all (the poster row comes first). */
async function insertRows(
  em: EntityManager,
  accountId: string,
  files: PendingFile[],
  origin: FileOrigin,
): Promise<void> {
  const values: string[] = [];
  const params: unknown[] = [];
  for (const f of files) {
    values.push('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, clock_timestamp())');
    params.push(
      f.id,
      accountId,
      f.kind,
      f.mimeType,
      f.buffer.length,
      f.width,
      f.height,
      f.id,
      sha256(f.buffer),
      f.posterMediaId,
      origin.sourceUrl,
      origin.fileName ?? null,
    );
  }
  await sql(
    em,
    `INSERT INTO media (id, account_id, kind, mime_type, byte_size, width, height, storage_key, sha256, poster_media_id, source_url, file_name, created_at)
     VALUES ${values.join(', ')}`,
    params,
  );
}

/** Gives back bytes charged for a store that failed after the charge. */
async function refundDailyMediaBytes(em: EntityManager, accountId: string, bytes: number): Promise<void> {
  await sql(
    em,
    `UPDATE media_usage SET bytes = GREATEST(0, bytes - ?::bigint)
      WHERE account_id = ? AND day = (now() AT TIME ZONE 'UTC')::date`,
    [bytes, accountId],
  );
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
  await assertQuotaLeft(deps.em, account);
  const image = await inspectAndNormalizeImage(bytes, { field: 'file' });
  return commitImage(deps, account, image);
}

/**
 * The console editor's upload of a file from the maintainer's computer: like POST /media, except
 * that an animated GIF is stored the way from-url stores one (a looping video and its first
 * frame, for the GIF island), since a local file has no address to store it from. The file's
 * name is kept for the console's labels.
 */
export async function storeUploadOrGifVideo(
  deps: MediaDeps,
  account: MediaAccount,
  bytes: Buffer,
  fileName: string | null,
): Promise<MediaJson> {
  await assertQuotaLeft(deps.em, account);
  let image: NormalizedImage;
  try {
    image = await inspectAndNormalizeImage(bytes, { field: 'file' });
  } catch (err) {
    if (err instanceof ImageError && err.problem === 'animated' && err.format === 'gif')
      return commitGifVideo(deps, account, await animatedGifToMp4(bytes, { field: 'file' }), null, fileName);
    throw err;
  }
  return commitImage(deps, account, image, null, fileName);
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
  await assertQuotaLeft(deps.em, account);
  const remote = await fetchRemoteMedia(url, {
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

export interface ServableMedia {
  storageKey: string;
  mimeType: string;
  byteSize: number;
  sha256: string;
}

/** Any stored file of a live account by id (files are public by their unguessable uuid: their url goes into public HTML). */
export async function findServableMedia(em: EntityManager, id: string): Promise<ServableMedia | null> {
  const rows = await sql<{ storage_key: string; mime_type: string; byte_size: string; sha256: string }[]>(
    em,
    // A deleted account's files stop being served with its articles: its uploads were public only
    // through the uuid, and that uuid may sit in pages or caches the account no longer controls.
    `SELECT m.storage_key, m.mime_type, m.byte_size, m.sha256
       FROM media m JOIN accounts a ON a.id = m.account_id AND a.deleted_at IS NULL
      WHERE m.id = ?`,
    [id],
  );
  const row = rows[0];
  return row
    ? { storageKey: row.storage_key, mimeType: row.mime_type, byteSize: Number(row.byte_size), sha256: row.sha256 }
    : null;
}
