import { isoTimestamp, statement, type StatementRunner } from '../../db/statements';
import type { MediaRecord, ServableMedia } from '../model/media';

/**
 * The media aggregate's rows: stored files (`media`). One row type and one mapper; SQL only
 * (what may be stored, the quota, the storage itself: server/services/media/media-storage.ts, server/media/).
 * The records it returns are server/model/media.ts's.
 */

const MEDIA_COLUMNS =
  'm.id, m.kind, m.mime_type, m.byte_size, m.width, m.height, m.source_url, m.file_name, m.created_at';

interface MediaRow {
  id: string;
  kind: string;
  mime_type: string;
  byte_size: string;
  width: number;
  height: number;
  source_url: string | null;
  file_name: string | null;
  created_at: string;
}

function mediaOf(row: MediaRow): MediaRecord {
  return {
    id: row.id,
    kind: row.kind,
    mimeType: row.mime_type,
    byteSize: Number(row.byte_size),
    width: row.width,
    height: row.height,
    sourceUrl: row.source_url,
    fileName: row.file_name,
    createdAt: isoTimestamp(row.created_at),
  };
}

/** A file to record: stored already, under its own id as the storage key. */
export type NewMediaRow = Pick<MediaRecord, 'id' | 'kind' | 'mimeType' | 'byteSize' | 'width' | 'height'> & {
  sha256: string;
  posterMediaId: string | null;
};

/** All rows of files that belong together (a GIF video and its poster) in one statement: together or not at all. */
const INSERT_MEDIA = statement(
  'media_insert',
  `INSERT INTO media (id, account_id, kind, mime_type, byte_size, width, height, storage_key, sha256,
                     poster_media_id, source_url, file_name, created_at)
   SELECT f.id, $1, f.kind, f.mime_type, f.byte_size, f.width, f.height, f.id::text, f.sha256,
          f.poster, $10, $11, clock_timestamp()
     FROM unnest($2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::int[], $8::text[], $9::uuid[])
          AS f(id, kind, mime_type, byte_size, width, height, sha256, poster)`,
);

export async function insertMediaRows(
  db: StatementRunner,
  accountId: string,
  files: NewMediaRow[],
  origin: { sourceUrl: string | null; fileName: string | null },
): Promise<void> {
  await db.run(INSERT_MEDIA, [
    accountId,
    files.map((f) => f.id),
    files.map((f) => f.kind),
    files.map((f) => f.mimeType),
    files.map((f) => f.byteSize),
    files.map((f) => f.width),
    files.map((f) => f.height),
    files.map((f) => f.sha256),
    files.map((f) => f.posterMediaId),
    origin.sourceUrl,
    origin.fileName,
  ]);
}

/**
 * Any stored file of a live account by id (files are public by their unguessable uuid: their
 * url goes into public HTML). A deleted account's files stop being served with its articles.
 */
const SERVABLE_MEDIA = statement(
  'media_servable',
  `SELECT m.storage_key, m.mime_type, m.byte_size, m.sha256
     FROM media m JOIN accounts a ON a.id = m.account_id AND a.deleted_at IS NULL
    WHERE m.id = $1`,
);

export async function findServableMediaRow(db: StatementRunner, id: string): Promise<ServableMedia | null> {
  const [row] = await db.run<{ storage_key: string; mime_type: string; byte_size: string; sha256: string }>(
    SERVABLE_MEDIA,
    [id],
  );
  return row
    ? { storageKey: row.storage_key, mimeType: row.mime_type, byteSize: Number(row.byte_size), sha256: row.sha256 }
    : null;
}

const OWN_MEDIA = statement(
  'media_own',
  `SELECT ${MEDIA_COLUMNS} FROM media m WHERE m.account_id = $1 AND m.id = ANY($2::uuid[])`,
);

/** The account's own files among `ids` (another account's and an unknown id alike are absent). */
export async function ownMediaRows(db: StatementRunner, accountId: string, ids: string[]): Promise<MediaRecord[]> {
  if (ids.length === 0) return [];
  return (await db.run<MediaRow>(OWN_MEDIA, [accountId, ids])).map(mediaOf);
}

const RECENT_MEDIA = statement(
  'media_recent',
  `SELECT ${MEDIA_COLUMNS} FROM media m
    WHERE m.account_id = $1 AND NOT EXISTS (SELECT 1 FROM media v WHERE v.poster_media_id = m.id)
    ORDER BY m.created_at DESC, m.id DESC LIMIT $2`,
);

/** The account's latest stored files, without the posters that belong to GIF videos. */
export async function recentMediaRows(db: StatementRunner, accountId: string, limit: number): Promise<MediaRecord[]> {
  return (await db.run<MediaRow>(RECENT_MEDIA, [accountId, limit])).map(mediaOf);
}

/** A library file found by its stored bytes: the one media row shape, with its GIF video's poster. */
type StoredCopyRow = MediaRecord & { kind: 'image' | 'gif'; posterMediaId: string | null };

/**
 * The account's oldest file of `kind` whose stored bytes hash to `sha256`, among the files its
 * library lists: a GIF video's poster is left out (the library never shows one, so reusing it
 * would hand back an entry the maintainer cannot find), and so is a deleted account's file.
 * Read through `media_account_sha256` (Migration20261128210000_media_by_hash): the few rows of
 * that hash, however many files the account has.
 */
const STORED_COPY = statement(
  'media_stored_copy',
  `SELECT ${MEDIA_COLUMNS}, m.poster_media_id
     FROM media m JOIN accounts a ON a.id = m.account_id AND a.deleted_at IS NULL
    WHERE m.account_id = $1 AND m.sha256 = $2 AND m.kind = $3
      AND NOT EXISTS (SELECT 1 FROM media v WHERE v.poster_media_id = m.id)
    ORDER BY m.created_at, m.id
    LIMIT 1`,
);

export async function findStoredCopyRow(
  db: StatementRunner,
  accountId: string,
  sha256: string,
  kind: 'image' | 'gif',
): Promise<StoredCopyRow | null> {
  const [row] = await db.run<MediaRow & { poster_media_id: string | null }>(STORED_COPY, [accountId, sha256, kind]);
  return row ? { ...mediaOf(row), kind, posterMediaId: row.poster_media_id } : null;
}
