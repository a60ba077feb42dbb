import type { StatementRunner } from '../../../db/statements';
import {
  admittedPostPage,
  admittedPostRow,
  readEditingRow,
  readEditorPageRow,
  readMarkdownRow,
} from '../../data/posts/reads';
import type { PostRow, PostVersion } from '../../data/posts/rows';
import type { PostStatus } from '../../model/post';
import { invalid, notFound } from '../../foundation/errors';
import { cursorSignedFor, encodeCursor, parseCursor, type ParsedCursor } from './cursor';
import type { AdmittedRead } from '../../admission/admitted-statement';
import { postEtag } from './post-etag';
import { authorPostFromRow, type AuthorPostJson } from './post-view';

/**
 * The author's reads (contract: "GET /posts/{id}", "GET /posts") and the console editor's, on
 * the posts aggregate's read statements (server/data/posts/reads.ts).
 */

/** GET /posts/{id}'s read, run in the statement that admits the caller (the handler runs it). */
export const postRead = (id: string) => admittedPostRow(id);

/** GET /posts/{id} from what `postRead` found: absent, deleted and another author's article are one 404. */
export function postFound(rows: readonly (PostRow & { html: string })[]): AuthorPostJson & { html: string } {
  const row = rows[0];
  if (!row) throw notFound('Article not found');
  const post = authorPostFromRow(row) as AuthorPostJson & { html: string };
  post.html = row.html;
  return post;
}

export const LIST_DEFAULT = 20;
export const LIST_MAX = 50;

const notOurCursor = () => invalid('cursor: not a cursor returned by this API (pass next_cursor unchanged)');

/** A GET /posts request: its page's read, and what the answer needs besides the rows. */
export interface PageRequest {
  read: AdmittedRead<PostRow>;
  limit: number;
  cursor: ParsedCursor | undefined;
}

/**
 * GET /posts: newest first by `(created_at, id)`, so an edited article keeps its place; one row
 * more than the page says whether there is a next one. The cursor is opaque and signed
 * (cursor.ts): an altered one is a 400 before anything is read. The page is read in the
 * statement that admits the caller (the handler runs `read`), so the signature, which names the
 * account, is checked on what that statement returns (`pageFound`): a cursor of another account
 * read nothing but the caller's own rows, and is a 400 too.
 */
export function pageRequest(opts: { status?: PostStatus; limit?: number; cursor?: string }): PageRequest {
  const limit = opts.limit ?? LIST_DEFAULT;
  let cursor: ParsedCursor | undefined;
  if (opts.cursor !== undefined) {
    cursor = parseCursor(opts.cursor) ?? undefined;
    if (!cursor) throw notOurCursor();
  }
  const after = cursor && { createdAt: cursor.position.createdAt.toISOString(), id: cursor.position.id };
  return { read: admittedPostPage({ status: opts.status, after, count: limit + 1 }), limit, cursor };
}

/** The page `request` read for the admitted account. */
export function pageFound(
  request: PageRequest,
  accountId: string,
  rows: readonly PostRow[],
): { items: AuthorPostJson[]; next_cursor: string | null } {
  const { cursor, limit } = request;
  if (cursor && !cursorSignedFor(accountId, cursor)) throw notOurCursor();
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

/**
 * What the console's editor page shows of an article: the article (no html), its `etag`, its
 * Markdown when it has at most `markdownUpTo` characters (null: the editor loads it after the
 * page shows, from `getMarkdownForEditor`), the published version's fields (not its html),
 * whether a version waits for moderation, and the moderator's note.
 */
export async function getEditorPage(
  db: StatementRunner,
  accountId: string,
  id: string,
  markdownUpTo: number,
): Promise<{
  post: AuthorPostJson;
  etag: string;
  markdown: string | null;
  publishedFields: Omit<PostVersion, 'html'> | null;
  hasSubmitted: boolean;
  moderationNote: string | null;
}> {
  const row = await readEditorPageRow(db, accountId, id, markdownUpTo);
  if (!row) throw notFound('Article not found');
  const post = authorPostFromRow(row);
  return {
    post,
    etag: postEtag(post),
    markdown: row.markdown,
    publishedFields: row.published_fields,
    hasSubmitted: row.has_submitted,
    moderationNote: row.moderation_note,
  };
}

/** The saved Markdown of an article alone, and the `etag` of the version it belongs to. */
export async function getMarkdownForEditor(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<{ etag: string; markdown: string }> {
  const row = await readMarkdownRow(db, accountId, id);
  if (!row) throw notFound('Article not found');
  return { etag: postEtag(authorPostFromRow(row)), markdown: row.markdown };
}
