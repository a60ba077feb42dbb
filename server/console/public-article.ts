import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PostVersion } from '../../db/entities';
import { sql } from '../../db/sql';
import { parseCanonicalSegment } from '../services/public-id';
import { canonicalPath } from '../services/post-view';

/**
 * What a reader may see at `/<slug>-<public_id>`: the frozen published version only
 * (publish or approval snapshot), never the working text. An article has one while it is
 * published, and also while a newer version waits for moderation (the last approved one stays
 * public meanwhile); unpublish, delete and a first submission still pending leave nothing public.
 */
export type PublicLookup =
  | { kind: 'article'; version: PostVersion; path: string; publishedAt: Date | null; handle: string }
  | { kind: 'moved'; path: string }
  | { kind: 'missing' };

export async function findPublicArticle(em: EntityManager, segment: string): Promise<PublicLookup> {
  const parsed = parseCanonicalSegment(segment);
  if (!parsed) return { kind: 'missing' };
  const rows = await sql<{ published_version: PostVersion; published_at: Date | null; handle: string }[]>(
    em,
    `SELECT p.published_version, p.published_at, a.handle
       FROM posts p JOIN accounts a ON a.id = p.account_id AND a.deleted_at IS NULL
      WHERE p.public_id = ? AND p.deleted_at IS NULL AND p.published_version IS NOT NULL`,
    [parsed.publicId],
  );
  const row = rows[0];
  if (!row) return { kind: 'missing' };
  const version = typeof row.published_version === 'string' ? (JSON.parse(row.published_version) as PostVersion) : row.published_version;
  const path = canonicalPath(version.slug, parsed.publicId);
  // The public_id identifies the article; a stale or mistyped slug before it is forgiven.
  if (parsed.slug !== version.slug) return { kind: 'moved', path };
  return { kind: 'article', version, path, publishedAt: row.published_at ? new Date(row.published_at) : null, handle: row.handle };
}
