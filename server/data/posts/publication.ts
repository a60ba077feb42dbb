import { statement, type StatementRunner } from '../../../db/statements';
import type { PostStatus } from '../../model/post';
import { POST_SELECT, WORKING_VERSION, type PostBody, type PostRowWith, type VersionSeen } from './rows';

/**
 * The statements that move an article between states (publish, unpublish, a moderator's
 * decision) and delete it. server/services/posts/publication.ts decides the move (a pure state machine
 * over the row's state); these read the state and apply the decision, as a rule in two round
 * trips: a read, then an update that applies only while the article is still at the version it
 * was decided on (the ETag's fields), which the caller decides again when it is not.
 */

/** Which version a snapshot column takes: the working one (built by PostgreSQL), a snapshot as it is, or none. */
export type VersionRef = 'working' | 'published' | 'submitted' | null;

/** An article's publication state, as the state machine reads it. */
export interface PublicationRow extends PostRowWith<'account_id' | 'moderation_note'> {
  /** The working html is empty (nothing to publish). */
  empty: boolean;
  /** The public snapshot's slug (its path, for purges), and whether a snapshot exists. */
  published_slug: string | null;
  has_published: boolean;
  has_submitted: boolean;
}

const STATE = `${POST_SELECT}, account_id, html !~ '\\S' AS empty, published_version->>'slug' AS published_slug,
  published_version IS NOT NULL AS has_published, submitted_version IS NOT NULL AS has_submitted, moderation_note`;

/** `$2` null: any author's article (a moderator's decision). */
const READ_STATE = statement(
  'post_publication_read',
  `SELECT ${STATE} FROM posts WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) AND deleted_at IS NULL`,
);

export async function readPublicationRow(
  db: StatementRunner,
  id: string,
  accountId: string | null,
): Promise<PublicationRow | null> {
  const [row] = await db.run<PublicationRow>(READ_STATE, [id, accountId]);
  return row ?? null;
}

/** What a move leaves: the state machine's fields, the snapshots as references. */
export interface PublicationChange {
  status: PostStatus;
  hasUnpublishedChanges: boolean;
  publishedAt: Date | null;
  published: VersionRef;
  submitted: VersionRef;
  moderationNote: string | null;
}

const snapshot = (param: string) =>
  `CASE ${param} WHEN 'working' THEN ${WORKING_VERSION} WHEN 'published' THEN published_version
                 WHEN 'submitted' THEN submitted_version END`;

/**
 * The move, applied only while the article is at the version `seen` (updated_at, status,
 * has_unpublished_changes, published_at). Every column on the right is the row's before the
 * update, so an approval's `published = 'submitted'` takes the snapshot that `submitted = null`
 * clears in the same statement. Any move ends the working version's run of autosaves
 * (Migration20261128200000_autosave_runs): without a run start the next autosave starts a history
 * entry of its own. `autosave_visit` stays: the version is still the autosave's.
 */
const APPLY = statement(
  'post_publication_apply',
  `UPDATE posts SET
     status = $3, has_unpublished_changes = $4, published_at = $5::timestamptz,
     published_version = ${snapshot('$6')}, submitted_version = ${snapshot('$7')}, moderation_note = $8,
     autosave_since = NULL
   WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) AND deleted_at IS NULL
     AND updated_at = $9::timestamptz AND status = $10 AND has_unpublished_changes = $11
     AND published_at IS NOT DISTINCT FROM $12::timestamptz
   RETURNING ${STATE}`,
);

/** The row after the move, or null when the article is no longer at `seen` (or is gone). */
export async function applyPublication(
  db: StatementRunner,
  id: string,
  accountId: string | null,
  change: PublicationChange,
  seen: VersionSeen,
): Promise<PublicationRow | null> {
  const [row] = await db.run<PublicationRow>(APPLY, [
    id,
    accountId,
    change.status,
    change.hasUnpublishedChanges,
    change.publishedAt,
    change.published,
    change.submitted,
    change.moderationNote,
    seen.updated_at,
    seen.status,
    seen.has_unpublished_changes,
    seen.published_at,
  ]);
  return row ?? null;
}

/** Soft delete; `$3` (the version seen) only when the delete is conditional (If-Match). */
const DELETE = statement(
  'post_delete',
  `UPDATE posts SET deleted_at = now()
    WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL AND ($3::timestamptz IS NULL OR updated_at = $3::timestamptz)
    RETURNING public_id, published_version->>'slug' AS published_slug`,
);

/** The deleted article's public id and snapshot slug, or null when nothing was deleted. */
export async function deletePostRow(
  db: StatementRunner,
  accountId: string,
  id: string,
  seenUpdatedAt: string | null,
): Promise<{ public_id: string; published_slug: string | null } | null> {
  const [row] = await db.run<{ public_id: string; published_slug: string | null }>(DELETE, [
    id,
    accountId,
    seenUpdatedAt,
  ]);
  return row ?? null;
}

/** The moderation queue: waiting submissions, oldest first, with their author's handle and the submitted version. */
export interface PendingRow extends PostRowWith<'account_id'> {
  handle: string;
  submitted_version: NonNullable<PostBody['submitted_version']>;
  /** An earlier version is public. */
  has_published: boolean;
  /** The Markdown it was submitted with (kept by a trigger); null for submissions older than it. */
  submitted_markdown: string | null;
}

const PENDING = statement(
  'posts_pending',
  `SELECT ${POST_SELECT.split(', ')
    .map((c) => `p.${c}`)
    .join(', ')}, p.account_id, a.handle, p.submitted_version,
          p.published_version IS NOT NULL AS has_published, p.submitted_markdown
     FROM posts p JOIN accounts a ON a.id = p.account_id
    WHERE p.status = 'pending_moderation' AND p.deleted_at IS NULL AND p.submitted_version IS NOT NULL
    ORDER BY p.updated_at, p.id`,
);

export function listPendingRows(db: StatementRunner): Promise<PendingRow[]> {
  return db.run<PendingRow>(PENDING, []);
}
