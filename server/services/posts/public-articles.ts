import { isoTimestamp, type StatementRunner } from '../../../db/statements';
import { readPublishedRow } from '../../data/posts/reads';
import type { PostVersion } from '../../data/posts/rows';
import { canonicalPath } from './post-view';
import { parseCanonicalSegment } from './public-id';

/**
 * What a reader may see at `/<slug>-<public_id>`: the frozen published version only
 * (publish or approval snapshot), never the working text. An article has one while it is
 * published, and also while a newer version waits for moderation; unpublish, delete, a
 * deleted account and a first submission still pending leave nothing public.
 *
 * One prepared statement (server/data/posts/reads.ts). The snapshot comes back as its JSON text,
 * so a conditional request can be answered from a hash of it without parsing or rendering anything.
 */
export type PublishedLookup =
  | { kind: 'article'; versionJson: string; path: string; publicId: string; publishedAt: string | null; handle: string }
  | { kind: 'moved'; path: string }
  | { kind: 'missing' };

export async function findPublishedArticle(db: StatementRunner, segment: string): Promise<PublishedLookup> {
  const parsed = parseCanonicalSegment(segment);
  if (!parsed) return { kind: 'missing' };
  const row = await readPublishedRow(db, parsed.publicId);
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
