import { ifMatchHolds, strongEtag } from '../../foundation/entity-tags';
import { stale } from '../../foundation/errors';

/**
 * Conditional requests on articles (beyond the contract, opt-in): a strong entity tag of the working
 * version and the publication state, so integrations editing from several places can refuse to
 * overwrite a change they have not seen (`If-Match`) and revalidate cheaply (`If-None-Match`).
 *
 * The tag is computed from fields every AuthorPost carries, so any read path can produce it
 * without loading anything else: `updated_at` moves on every change of the working version
 * (an edit keeps it strictly increasing per article, see post-write-statements.ts), and `status`,
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

/**
 * Timestamps as `toISOString()` writes them. Reads hand over text already in that form (the
 * statements format timestamps so), which is kept as it is: parsing it into a Date to print it
 * again gave the same text at a cost. Any other form goes through a Date.
 */
const ISO_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const iso = (value: string | Date | null) =>
  value === null
    ? ''
    : typeof value === 'string'
      ? ISO_FORM.test(value)
        ? value
        : new Date(value).toISOString()
      : value.toISOString();

export function postEtag(post: EtagFields): string {
  return strongEtag(
    [
      post.id.toLowerCase(),
      iso(post.updated_at),
      post.status,
      post.has_unpublished_changes ? '1' : '0',
      iso(post.published_at),
    ].join('\n'),
  );
}

const preconditionFailed = () =>
  stale(
    'If-Match: the article has changed since that version was read; nothing was changed. GET it again, reapply your change and send the new ETag',
  );

/** Throws 412 when the client's `If-Match` does not name the current version. */
export function assertIfMatch(header: string | null | undefined, post: EtagFields): void {
  if (!ifMatchHolds(header, postEtag(post))) throw preconditionFailed();
}
