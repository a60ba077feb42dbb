import type { StatementRunner } from '../../db/statements';
import { readEditingRow, readPostPageRows, readPostRow } from '../data/posts/reads';
import type { PostStatus, PostVersion } from '../data/posts/rows';
import { invalid, notFound } from '../foundation/errors';
import { decodeCursor, encodeCursor } from './cursor';
import { postEtag } from './post-etag';
import { authorPostFromRow, type AuthorPostJson } from './post-view';

/**
 * The author's reads (contract: "GET /posts/{id}", "GET /posts") and the console editor's, on
 * the posts aggregate's read statements (server/data/posts/reads.ts).
 */

/** GET /posts/{id}: absent, deleted and another author's article are one 404. */
export async function readPost(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<AuthorPostJson & { html: string }> {
  const row = await readPostRow(db, accountId, id);
  if (!row) throw notFound('Article not found');
  const post = authorPostFromRow(row) as AuthorPostJson & { html: string };
  post.html = row.html;
  return post;
}

const LIST_DEFAULT = 20;
export const LIST_MAX = 50;

/**
 * GET /posts: newest first by `(created_at, id)`, so an edited article keeps its place; one row
 * more than the page says whether there is a next one. The cursor is opaque and signed
 * (cursor.ts): a cursor of another account, or altered, is a 400.
 */
export async function readPostPage(
  db: StatementRunner,
  accountId: string,
  opts: { status?: PostStatus; limit?: number; cursor?: string },
): Promise<{ items: AuthorPostJson[]; next_cursor: string | null }> {
  const limit = opts.limit ?? LIST_DEFAULT;
  let after: { createdAt: string; id: string } | undefined;
  if (opts.cursor !== undefined) {
    const position = decodeCursor(accountId, opts.cursor);
    if (!position) throw invalid('cursor: not a cursor returned by this API (pass next_cursor unchanged)');
    after = { createdAt: position.createdAt.toISOString(), id: position.id };
  }
  const rows = await readPostPageRows(db, accountId, { status: opts.status, after, count: limit + 1 });
  const hasMore = rows.length > limit;
  const items = (hasMore ? rows.slice(0, limit) : rows).map((row) => authorPostFromRow(row));
  const last = items[items.length - 1];
  return {
    items,
    next_cursor:
      hasMore && last ? encodeCursor(accountId, { createdAt: new Date(last.created_at), id: last.id }) : null,
  };
}

/** The working version with its Markdown, for the console editor; `etag` is what a save sends back. */
export async function getPostForEditing(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<{
  post: AuthorPostJson & { html: string };
  etag: string;
  markdown: string;
  publishedVersion: PostVersion | null;
  submittedVersion: PostVersion | null;
  moderationNote: string | null;
}> {
  const row = await readEditingRow(db, accountId, id);
  if (!row) throw notFound('Article not found');
  const post = authorPostFromRow(row, { html: row.html }) as AuthorPostJson & { html: string };
  return {
    post,
    etag: postEtag(post),
    markdown: row.markdown,
    publishedVersion: row.published_version,
    submittedVersion: row.submitted_version,
    moderationNote: row.moderation_note,
  };
}
