import { statement, type StatementRunner } from '../../db/statements';
import type { StoredImage } from './rehost-port';
import { localMediaPath } from '../content/urls';

/**
 * Rehost memory (table post_media_sources): per article, which external image URL became which
 * stored image. A re-render substitutes every remembered URL without downloading it again, so
 * an edit pays only for images it adds. Keys are the canonical URLs the content pipeline
 * reports; a row is written once and never changed (the first stored copy wins).
 */
export type RehostMemory = Map<string, StoredImage>;

interface MemoryRow {
  source_url: string;
  id: string;
  width: number;
  height: number;
}

/**
 * The memory as a JSON array in a column of another statement (the article's own row, read or
 * locked), so reading it costs no round trip of its own. `$1` is the article's id.
 */
export const REHOST_MEMORY_COLUMN = `(SELECT coalesce(json_agg(json_build_object(
      'source_url', s.source_url, 'id', m.id, 'width', m.width, 'height', m.height)), '[]')
     FROM post_media_sources s JOIN media m ON m.id = s.media_id WHERE s.post_id = $1) AS rehost_memory`;

/** REHOST_MEMORY_COLUMN's value as the memory. */
export function rehostMemoryOf(rows: MemoryRow[]): RehostMemory {
  return new Map(rows.map((r) => [r.source_url, { id: r.id, width: r.width, height: r.height }]));
}

const REMEMBER_REHOSTS = statement(
  'post_media_sources_remember',
  `INSERT INTO post_media_sources (post_id, source_url, media_id)
   SELECT $1, * FROM unnest($2::text[], $3::uuid[])
   ON CONFLICT (post_id, source_url) DO NOTHING`,
);

export async function rememberRehosts(
  db: StatementRunner,
  postId: string,
  stored: Record<string, StoredImage>,
): Promise<void> {
  const entries = Object.entries(stored);
  if (entries.length === 0) return;
  await db.runWrite(REMEMBER_REHOSTS, [postId, entries.map(([url]) => url), entries.map(([, image]) => image.id)]);
}

/** The memory as the content pipeline takes it: source URL -> `/api/media/<uuid>`. */
export function substitutions(memory: RehostMemory): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [url, image] of memory) out[url] = localMediaPath(image.id);
  return out;
}
