import { isoTimestamp, type StatementRunner } from '../../../db/statements';
import { listPendingRows, type PublicationRow } from '../../data/posts/publication';
import { notFound } from '../../foundation/errors';
import { movePost, type PublishingContext } from './post-publishing';
import { approve, reject } from './publication';
import { publicPathOf } from './public-changes';

/**
 * Moderation of the articles moderated accounts submit (docs/api.md "States and moderation"):
 * the queue, approve and reject, for the console's admins and the CLI. Any account's article;
 * the transitions themselves are publication.ts's, applied as every move is (post-publishing.ts).
 */

/** An article waiting for a moderator's decision, as the queue shows it. */
export interface PendingArticle {
  id: string;
  accountId: string;
  /** The author's handle. */
  handle: string;
  /** The submitted version's title (what would be published). */
  title: string;
  publicId: string;
  slug: string;
  /** ISO 8601: when it was submitted. */
  submittedAt: string;
  /** An earlier version is public meanwhile. */
  hasPublished: boolean;
  /** The submitted version's sanitized body. */
  submittedHtml: string;
  /** The Markdown it was submitted with; null when submitted before the service kept it. */
  submittedMarkdown: string | null;
}

/** Waiting articles, oldest submission first. */
export async function listPending(db: StatementRunner): Promise<PendingArticle[]> {
  return (await listPendingRows(db)).map((row) => ({
    id: row.id,
    accountId: row.account_id,
    handle: row.handle,
    title: row.submitted_version.title,
    publicId: row.public_id,
    slug: row.slug,
    submittedAt: isoTimestamp(row.updated_at),
    hasPublished: row.has_published,
    submittedHtml: row.submitted_version.html,
    submittedMarkdown: row.submitted_markdown,
  }));
}

export function approvePost(ctx: PublishingContext, id: string): Promise<PublicationRow> {
  return decide(ctx, id, (state) => approve(state, new Date(), `Article ${id}`));
}

export function rejectPost(ctx: PublishingContext, id: string, reason: string | null): Promise<PublicationRow> {
  return decide(ctx, id, (state) => reject(state, reason, `Article ${id}`));
}

async function decide(
  ctx: PublishingContext,
  id: string,
  transition: Parameters<typeof movePost>[3],
): Promise<PublicationRow> {
  const { row, before } = await movePost(ctx.db, id, null, transition, { missing: () => notFound(`No article ${id}`) });
  // An approval replaces the public snapshot (and may move its slug); a rejection leaves it as
  // it was, but a decision is announced alike, so a cache never holds a page older than it.
  ctx.announce([before, publicPathOf(row.published_slug, row.public_id)]);
  return row;
}
