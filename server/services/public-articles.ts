import { statement, isoTimestamp, type StatementRunner } from '../../db/statements';
import type { PostVersion } from '../../db/entities';
import { canonicalPath } from './post-view';
import { parseCanonicalSegment } from './public-id';

/**
 * What a reader may see at `/<slug>-<public_id>`: the frozen published version only
 * (publish or approval snapshot), never the working text. An article has one while it is
 * published, and also while a newer version waits for moderation; unpublish, delete, a
 * deleted account and a first submission still pending leave nothing public.
 *
 * One prepared statement. The snapshot comes back as its JSON text, so a conditional request
 * can be answered from a hash of it without parsing or rendering anything.
 */
export type PublishedLookup =
  | { kind: 'article'; versionJson: string; path: string; publicId: string; publishedAt: string | null; handle: string }
  | { kind: 'moved'; path: string }
  | { kind: 'missing' };

const PUBLISHED_BY_PUBLIC_ID = statement(
  'published_by_public_id',
  `SELECT p.published_version::text AS version_json, p.published_version->>'slug' AS slug, p.published_at, a.handle
     FROM posts p JOIN accounts a ON a.id = p.account_id AND a.deleted_at IS NULL
    WHERE p.public_id = $1 AND p.deleted_at IS NULL AND p.published_version IS NOT NULL`,
);

export async function findPublishedArticle(db: StatementRunner, segment: string): Promise<PublishedLookup> {
  const parsed = parseCanonicalSegment(segment);
  if (!parsed) return { kind: 'missing' };
  const rows = await db.run<{ version_json: string; slug: string; published_at: string | null; handle: string }>(
    PUBLISHED_BY_PUBLIC_ID,
    [parsed.publicId],
  );
  const row = rows[0];
  if (!row) return { kind: 'missing' };
  const path = canonicalPath(row.slug, parsed.publicId);
  // The public_id identifies the article; a stale or mistyped slug before it is forgiven.
  if (parsed.slug !== row.slug) return { kind: 'moved', path };
  return {
    kind: 'article',
    versionJson: row.version_json,
    path,
    publicId: parsed.publicId,
    publishedAt: row.published_at ? isoTimestamp(row.published_at) : null,
    handle: row.handle,
  };
}

export function parseVersion(json: string): PostVersion {
  return JSON.parse(json) as PostVersion;
}
