import { invalid } from '../../foundation/errors';

/**
 * The publication state machine of an article (docs/api.md "States and moderation"), as pure
 * functions over the fields it moves, so every rule is tested without a database and the
 * services only load, lock and save:
 *
 *   draft ──publish──▶ published                (unmoderated account)
 *   draft ──publish──▶ pending_moderation       (moderated account)
 *   published ──publish (changes waiting)──▶ published / pending_moderation
 *   published ──publish (nothing waiting)──▶ unchanged: published_at stays, no moderation
 *   pending_moderation ──approve──▶ published   (the submitted version goes public)
 *   pending_moderation ──reject──▶ published if an earlier version is public, else draft
 *   published, pending_moderation ──unpublish──▶ draft
 *   any state but draft ──edit──▶ has_unpublished_changes
 *
 * Every refusal is a 400 naming `status` (or `markdown` for an empty working version).
 */
type PublicationStatus = 'draft' | 'pending_moderation' | 'published';

export interface Publication<V> {
  status: PublicationStatus;
  hasUnpublishedChanges: boolean;
  publishedVersion?: V | null;
  submittedVersion?: V | null;
  publishedAt?: Date | null;
  moderationNote?: string | null;
}

/** Whether a state change happened (false: the call was a no-op the caller need not save). */
type Changed = boolean;

export function publish<V>(
  post: Publication<V>,
  working: { version: V; empty: boolean },
  opts: { moderated: boolean; now: Date },
): Changed {
  if (post.status === 'pending_moderation') {
    throw invalid('status: the article is waiting for moderation and cannot be published again until it is decided');
  }
  if (post.status === 'published' && !post.hasUnpublishedChanges) return false;
  if (working.empty) throw invalid('markdown: the working document is empty');
  if (opts.moderated) {
    post.status = 'pending_moderation';
    post.submittedVersion = working.version;
  } else {
    post.status = 'published';
    post.publishedVersion = working.version;
    post.submittedVersion = null;
    post.publishedAt = opts.now;
  }
  post.moderationNote = null;
  post.hasUnpublishedChanges = false;
  return true;
}

export function unpublish<V>(post: Publication<V>): Changed {
  if (post.status === 'draft') throw invalid('status: a draft is not published');
  post.status = 'draft';
  post.publishedVersion = null;
  post.submittedVersion = null;
  post.publishedAt = null;
  post.hasUnpublishedChanges = false;
  return true;
}

/** A change of the working version: readers keep seeing the public one until the next publish. */
export function edited<V>(post: Publication<V>): void {
  if (post.status !== 'draft') post.hasUnpublishedChanges = true;
}

/** Approve: the submitted version becomes public; published_at is the approval time. */
export function approve<V>(post: Publication<V>, now: Date, label: string): Changed {
  if (post.status !== 'pending_moderation' || !post.submittedVersion)
    throw invalid(`${label} is not waiting for moderation`);
  post.publishedVersion = post.submittedVersion;
  post.submittedVersion = null;
  post.status = 'published';
  post.publishedAt = now;
  post.moderationNote = null;
  return true;
}

/** Reject: back to draft, or to published when an earlier version is still public; the text is kept. */
export function reject<V>(post: Publication<V>, reason: string | null, label: string): Changed {
  if (post.status !== 'pending_moderation') throw invalid(`${label} is not waiting for moderation`);
  post.submittedVersion = null;
  post.moderationNote = reason;
  if (post.publishedVersion) {
    post.status = 'published';
    // The rejected text is still the working version and differs from what readers see.
    post.hasUnpublishedChanges = true;
  } else {
    post.status = 'draft';
    post.hasUnpublishedChanges = false;
  }
  return true;
}
