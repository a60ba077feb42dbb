import { statement, type StatementRunner } from '../../db/statements';
import { invalid, notFound } from '../errors';
import { decodeCursor, encodeCursor } from './cursor';
import { AUTHOR_POST_COLUMNS, authorPostFromRow, type AuthorPostJson, type AuthorPostRow } from './post-view';
import type { PostStatus } from '../../db/entities';

/**
 * The author's article reads (GET /posts/{id}, GET /posts): one prepared statement each,
 * rows mapped straight to JSON. Writes and the console go through the ORM (posts.ts).
 */

const POST_BY_ID = statement(
  'post_by_id',
  `SELECT ${AUTHOR_POST_COLUMNS}, html FROM posts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
);

export async function readPost(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<AuthorPostJson & { html: string }> {
  const rows = await db.run<AuthorPostRow & { html: string }>(POST_BY_ID, [id, accountId]);
  const row = rows[0];
  if (!row) throw notFound('Article not found');
  const post = authorPostFromRow(row) as AuthorPostJson & { html: string };
  post.html = row.html;
  return post;
}

/** GET /posts page size: the schema (list.schema.ts) admits 1 to LIST_MAX; LIST_DEFAULT when absent. */
const LIST_DEFAULT = 20;
export const LIST_MAX = 50;

/**
 * Keyset pages, newest first. One statement per shape (with or without a status filter and a
 * cursor), so each keeps a plan that walks the (account_id[, status], created_at, id) index:
 * a deep page costs what the first page costs. A generic plan with optional predicates could
 * not use the row comparison as an index bound.
 */
const page = (name: string, status: boolean, after: boolean) => {
  let where = 'account_id = $1 AND deleted_at IS NULL';
  let n = 2;
  if (status) where += ` AND status = $${n++}`;
  if (after) {
    where += ` AND (created_at, id) < ($${n}::timestamptz, $${n + 1}::uuid)`;
    n += 2;
  }
  return statement(
    name,
    `SELECT ${AUTHOR_POST_COLUMNS} FROM posts WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${n}`,
  );
};
const PAGE_FIRST = page('posts_page_first', false, false);
const PAGE_AFTER = page('posts_page_after', false, true);
const PAGE_STATUS_FIRST = page('posts_page_status_first', true, false);
const PAGE_STATUS_AFTER = page('posts_page_status_after', true, true);

export async function readPostPage(
  db: StatementRunner,
  accountId: string,
  opts: { status?: PostStatus; limit?: number; cursor?: string },
): Promise<{ items: AuthorPostJson[]; next_cursor: string | null }> {
  const limit = opts.limit ?? LIST_DEFAULT;
  const values: unknown[] = [accountId];
  if (opts.status) values.push(opts.status);
  if (opts.cursor !== undefined) {
    const after = decodeCursor(accountId, opts.cursor);
    if (!after) throw invalid('cursor: not a cursor returned by this API (pass next_cursor unchanged)');
    values.push(after.createdAt.toISOString(), after.id);
  }
  values.push(limit + 1);
  const st = opts.status
    ? opts.cursor !== undefined
      ? PAGE_STATUS_AFTER
      : PAGE_STATUS_FIRST
    : opts.cursor !== undefined
      ? PAGE_AFTER
      : PAGE_FIRST;
  const rows = await db.run<AuthorPostRow>(st, values);
  const hasMore = rows.length > limit;
  const items = (hasMore ? rows.slice(0, limit) : rows).map((row) => authorPostFromRow(row));
  const last = items[items.length - 1];
  return {
    items,
    next_cursor:
      hasMore && last ? encodeCursor(accountId, { createdAt: new Date(last.created_at), id: last.id }) : null,
  };
}
