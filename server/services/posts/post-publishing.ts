import type { StatementRunner } from '../../../db/statements';
import {
  applyPublication,
  deletePostRow,
  readPublicationRow,
  type PublicationChange,
  type PublicationRow,
  type VersionRef,
} from '../../data/posts/publication';
import { notFound } from '../../foundation/errors';
import { assertIfMatch } from './post-etag';
import { authorPostFromRow, type AuthorPostJson } from './post-view';
import { publish, unpublish, type Publication } from './publication';
import { publicPathOf, type AnnouncePublicChange } from './public-changes';
import type { WritePreconditions } from './post-writes';

/**
 * Moving an article between states (publish, unpublish, a moderator's decision) and deleting it.
 * The rules are publication.ts's (a pure state machine); here the article's state is read, the
 * move decided on it, and applied in one statement while the article is still at the version it
 * was decided on: two round trips as a rule. When another write came in between, the move is
 * decided again on the row as it is then (If-Match included), a few times at most.
 * What a committed move changes publicly is announced (caches purge those paths).
 */
export interface PublishingContext {
  db: StatementRunner;
  announce: AnnouncePublicChange;
}

/** A move of the state machine over the row's state (snapshots as references). */
type Move = (state: Publication<VersionRef>, row: PublicationRow) => boolean;

const ATTEMPTS = 5;

/**
 * Reads the article (`accountId` null: any author's, for moderators), decides `move` on it and
 * applies it; returns the row after it (or as it was, when the move changed nothing) and the
 * public path it had before.
 */
export async function movePost(
  db: StatementRunner,
  id: string,
  accountId: string | null,
  move: Move,
  opts: { ifMatch?: string | null; missing: () => Error },
): Promise<{ row: PublicationRow; before: string | null; changed: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const row = await readPublicationRow(db, id, accountId);
    if (!row) throw opts.missing();
    assertIfMatch(opts.ifMatch, authorPostFromRow(row));
    const before = publicPathOf(row.published_slug, row.public_id);
    const state: Publication<VersionRef> = {
      status: row.status,
      hasUnpublishedChanges: row.has_unpublished_changes,
      publishedVersion: row.has_published ? 'published' : null,
      submittedVersion: row.has_submitted ? 'submitted' : null,
      publishedAt: row.published_at ? new Date(row.published_at) : null,
      moderationNote: row.moderation_note,
    };
    if (!move(state, row)) return { row, before, changed: false };
    const change: PublicationChange = {
      status: state.status,
      hasUnpublishedChanges: state.hasUnpublishedChanges,
      publishedAt: state.publishedAt ?? null,
      published: state.publishedVersion ?? null,
      submitted: state.submittedVersion ?? null,
      moderationNote: state.moderationNote ?? null,
    };
    const moved = await applyPublication(db, id, accountId, change, row);
    if (moved) return { row: moved, before, changed: true };
    if (attempt === ATTEMPTS) throw opts.missing();
  }
}

const articleNotFound = () => notFound('Article not found');

/** Publish the working version; the rules (moderation, no-op republish, refusals) are publication.ts's. */
export async function publishPost(
  ctx: PublishingContext,
  accountId: string,
  id: string,
  moderated: boolean,
  pre: WritePreconditions = {},
): Promise<AuthorPostJson> {
  const { row, before, changed } = await movePost(
    ctx.db,
    id,
    accountId,
    (state, current) => publish(state, { version: 'working', empty: current.empty }, { moderated, now: new Date() }),
    { ifMatch: pre.ifMatch, missing: articleNotFound },
  );
  // A new snapshot (not one sent to moderation) changes the page; a new slug moves it, so the
  // old path (now a redirect) and the new one (perhaps a cached redirect or 404) both change.
  if (changed && row.status === 'published') ctx.announce([before, publicPathOf(row.published_slug, row.public_id)]);
  return authorPostFromRow(row);
}

/** Unpublish: back to draft (publication.ts); 400 from draft. */
export async function unpublishPost(
  ctx: PublishingContext,
  accountId: string,
  id: string,
  pre: WritePreconditions = {},
): Promise<AuthorPostJson> {
  const { row, before } = await movePost(ctx.db, id, accountId, (state) => unpublish(state), {
    ifMatch: pre.ifMatch,
    missing: articleNotFound,
  });
  ctx.announce([before]);
  return authorPostFromRow(row);
}

/** Soft delete; with If-Match, only the version it names (checked against a read, applied conditionally). */
export async function deletePost(
  ctx: PublishingContext,
  accountId: string,
  id: string,
  pre: WritePreconditions = {},
): Promise<void> {
  let seen: string | null = null;
  if (pre.ifMatch !== undefined && pre.ifMatch !== null) {
    const row = await readPublicationRow(ctx.db, id, accountId);
    if (!row) throw articleNotFound();
    assertIfMatch(pre.ifMatch, authorPostFromRow(row));
    seen = row.updated_at;
  }
  const deleted = await deletePostRow(ctx.db, accountId, id, seen);
  if (!deleted) {
    // Gone, or (conditional) changed since it was read: which one, a read says.
    if (seen !== null && (await readPublicationRow(ctx.db, id, accountId))) return deletePost(ctx, accountId, id, pre);
    throw articleNotFound();
  }
  ctx.announce([publicPathOf(deleted.published_slug, deleted.public_id)]);
}
