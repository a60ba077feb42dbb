import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import type { StoredImage } from './rehost-port';
import { localMediaPath } from '../content/urls';

/**
 * Rehost memory (table post_media_sources): per article, which external image URL became which
 * stored image. A re-render substitutes every remembered URL without downloading it again, so
 * an edit pays only for images it adds. Keys are the canonical URLs the content pipeline
 * reports; a row is written once and never changed (the first stored copy wins).
 */
export type RehostMemory = Map<string, StoredImage>;

export async function loadRehostMemory(em: EntityManager, postId: string): Promise<RehostMemory> {
  const rows = await sql<{ source_url: string; id: string; width: number; height: number }[]>(
    em,
    `SELECT s.source_url, m.id, m.width, m.height
       FROM post_media_sources s JOIN media m ON m.id = s.media_id
      WHERE s.post_id = ?`,
    [postId],
  );
  return new Map(rows.map((r) => [r.source_url, { id: r.id, width: r.width, height: r.height }]));
}

export async function rememberRehosts(
  em: EntityManager,
  postId: string,
  stored: Record<string, StoredImage>,
): Promise<void> {
  const entries = Object.entries(stored);
  if (entries.length === 0) return;
  await sql(
    em,
    `INSERT INTO post_media_sources (post_id, source_url, media_id)
     VALUES ${entries.map(() => '(?, ?, ?)').join(', ')}
     ON CONFLICT (post_id, source_url) DO NOTHING`,
    entries.flatMap(([url, image]) => [postId, url, image.id]),
  );
}

/** The memory as the content pipeline takes it: source URL -> `/api/media/<uuid>`. */
export function substitutions(memory: RehostMemory): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [url, image] of memory) out[url] = localMediaPath(image.id);
  return out;
}
