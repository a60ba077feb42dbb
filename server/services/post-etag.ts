import { createHash } from 'node:crypto';
import { ApiError } from '../errors';

/**
 * Conditional requests on articles (beyond SPEC, opt-in): a strong entity tag of the working
 * version and the publication state, so integrations editing from several places can refuse to
 * overwrite a change they have not seen (`If-Match`) and revalidate cheaply (`If-None-Match`).
 *
 * The tag is computed from fields every AuthorPost carries, so any read path can produce it
 * without loading anything else: `updated_at` moves on every change of the working version
 * (writes keep it strictly increasing per article, see posts.ts), and `status`,
 * `published_at` and `has_unpublished_changes` cover publish, unpublish and moderation.
 * Counters (likes, reads…) are not part of it: readers' activity is not an edit and must not
 * make an author's If-Match fail.
 */
export interface EtagFields {
  id: string;
  status: string;
  has_unpublished_changes: boolean;
  /** ISO strings as in AuthorPost, or Dates. */
  updated_at: string | Date;
  published_at: string | Date | null;
}

const iso = (value: string | Date | null) => (value === null ? '' : typeof value === 'string' ? new Date(value).toISOString() : value.toISOString());

export function postEtag(post: EtagFields): string {
  const material = [post.id.toLowerCase(), iso(post.updated_at), post.status, post.has_unpublished_changes ? '1' : '0', iso(post.published_at)].join('\n');
  return `"${createHash('sha256').update(material).digest('base64url').slice(0, 27)}"`;
}

/** Entity tags of an `If-Match` / `If-None-Match` value (RFC 9110 §8.8.3); `*` is returned alone. */
export function parseEntityTags(header: string): { any: boolean; tags: { weak: boolean; opaque: string }[] } {
  if (header.trim() === '*') return { any: true, tags: [] };
  const tags: { weak: boolean; opaque: string }[] = [];
  for (const match of header.matchAll(/(W\/)?("[^"]*")/g)) tags.push({ weak: Boolean(match[1]), opaque: match[2]! });
  return { any: false, tags };
}

/** `If-Match` uses strong comparison: a weak tag never matches (RFC 9110 §13.1.1). */
export function ifMatchHolds(header: string | null | undefined, current: string): boolean {
  if (header === null || header === undefined) return true;
  const parsed = parseEntityTags(header);
  return parsed.any || parsed.tags.some((t) => !t.weak && t.opaque === current);
}

/** `If-None-Match` uses weak comparison (RFC 9110 §13.1.2): true when the client's copy is current. */
export function ifNoneMatchMatches(header: string | null | undefined, current: string): boolean {
  if (header === null || header === undefined) return false;
  const parsed = parseEntityTags(header);
  return parsed.any || parsed.tags.some((t) => t.opaque === current);
}

export const preconditionFailed = () =>
  new ApiError(
    412,
    'If-Match: the article has changed since that version was read; nothing was changed. GET it again, reapply your change and send the new ETag',
    'precondition_failed',
  );

/** Throws 412 when the client's `If-Match` does not name the current version. */
export function assertIfMatch(header: string | null | undefined, post: EtagFields): void {
  if (!ifMatchHolds(header, postEtag(post))) throw preconditionFailed();
}
