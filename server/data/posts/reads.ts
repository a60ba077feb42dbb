import { statement, type Statement, type StatementRunner } from '../../../db/statements';
import { admittedStatement } from '../../admission/admitted-statement';
import { ADMITTED_ACCOUNT, NOTHING, sql } from '../../admission/sql';
import { LIVE_OWN, POST_SELECT, WORKING_VERSION, type PostRow, type PostRowWith, type PostVersion } from './rows';
import type { PostStatus } from '../../model/post';

/**
 * The posts aggregate's reads: the author's article (GET /posts/{id}), a page of the author's
 * articles (GET /posts, keyset on `(created_at, id)`), the public lookup of a published snapshot,
 * and what the console shows (the editor's row, previews, the list with its search and sorts,
 * counts per status, the history of saves).
 */

const ADMITTED_POST_BY_ID = admittedStatement<'id', PostRowWith<'html'>>({
  name: 'admitted_post_by_id',
  cls: 'read',
  params: { id: 'uuid' },
  read: (p) =>
    sql`SELECT ${POST_SELECT}, html FROM posts WHERE id = ${p.id} AND account_id = ${ADMITTED_ACCOUNT} AND deleted_at IS NULL`,
});

/**
 * GET /posts/{id}: the author's live article with its html, read in the statement that admits
 * the author; no row for one that is absent, deleted or another author's.
 */
export const admittedPostRow = (id: string) => ADMITTED_POST_BY_ID.read({ id });

const POST_ROW = statement('post_row', `SELECT ${POST_SELECT} FROM posts WHERE ${LIVE_OWN}`);

/** The author's live article without its body; null for one that is absent, deleted or another author's. */
export async function readPostHead(db: StatementRunner, accountId: string, id: string): Promise<PostRow | null> {
  const [row] = await db.run<PostRow>(POST_ROW, [id, accountId]);
  return row ?? null;
}

/** The most rows a page statement reads: above any page the API serves (50, plus one to see a next page). */
const PAGE_ROWS_CEILING = 100;

/**
 * GET /posts: one page statement per shape (status filter, cursor), so each is planned once, each
 * admitting the author in the same statement. Newest first on `(created_at, id)`; `count` is how
 * many rows to return (a LIMIT outside the read, whose own is the constant ceiling).
 */
const admittedPage = (name: string, shape: { status: boolean; after: boolean }) =>
  admittedStatement<'status' | 'createdAt' | 'id' | 'count', PostRow>({
    name,
    cls: 'read',
    params: { status: 'text', createdAt: 'timestamptz', id: 'uuid', count: 'int' },
    read: (p) => sql`SELECT ${POST_SELECT} FROM posts
       WHERE account_id = ${ADMITTED_ACCOUNT} AND deleted_at IS NULL
         ${shape.status ? sql`AND status = ${p.status}` : NOTHING}
         ${shape.after ? sql`AND (created_at, id) < (${p.createdAt}, ${p.id})` : NOTHING}
       ORDER BY created_at DESC, id DESC LIMIT ${String(PAGE_ROWS_CEILING)}`,
    rows: 'count',
  });
const ADMITTED_PAGES = {
  first: admittedPage('admitted_posts_page_first', { status: false, after: false }),
  after: admittedPage('admitted_posts_page_after', { status: false, after: true }),
  statusFirst: admittedPage('admitted_posts_page_status_first', { status: true, after: false }),
  statusAfter: admittedPage('admitted_posts_page_status_after', { status: true, after: true }),
};

type PageOptions = { status?: PostStatus; after?: { createdAt: string; id: string }; count: number };

/** The page of this shape, for the author admitted by the same statement. */
export function admittedPostPage(opts: PageOptions) {
  if (opts.count > PAGE_ROWS_CEILING) throw new RangeError(`a page reads at most ${PAGE_ROWS_CEILING} rows`);
  const st = opts.status
    ? opts.after
      ? ADMITTED_PAGES.statusAfter
      : ADMITTED_PAGES.statusFirst
    : opts.after
      ? ADMITTED_PAGES.after
      : ADMITTED_PAGES.first;
  return st.read({
    status: opts.status ?? null,
    createdAt: opts.after?.createdAt ?? null,
    id: opts.after?.id ?? null,
    count: opts.count,
  });
}

/**
 * What a reader may see at `/<slug>-<public_id>`: the frozen published version only, never the
 * working text, of a live article of a live account. The snapshot comes back as its JSON text,
 * so a conditional request is answered from a hash of it without parsing or rendering anything.
 */
const PUBLISHED_BY_PUBLIC_ID = statement(
  'published_by_public_id',
  `SELECT p.published_version::text AS version_json, p.published_version->>'slug' AS slug, p.published_at, a.handle
     FROM posts p JOIN accounts a ON a.id = p.account_id AND a.deleted_at IS NULL
    WHERE p.public_id = $1 AND p.deleted_at IS NULL AND p.published_version IS NOT NULL`,
);

export interface PublishedRow {
  version_json: string;
  slug: string;
  published_at: string | null;
  handle: string;
}

export async function readPublishedRow(db: StatementRunner, publicId: string): Promise<PublishedRow | null> {
  const [row] = await db.run<PublishedRow>(PUBLISHED_BY_PUBLIC_ID, [publicId]);
  return row ?? null;
}

/** The editor's row: the article, its Markdown and html, both snapshots and the moderator's note. */
export type EditingRow = PostRowWith<
  'markdown' | 'html' | 'published_version' | 'submitted_version' | 'moderation_note'
>;

const FOR_EDITING = statement(
  'post_for_editing',
  `SELECT ${POST_SELECT}, markdown, html, published_version, submitted_version, moderation_note FROM posts WHERE ${LIVE_OWN}`,
);

export async function readEditingRow(db: StatementRunner, accountId: string, id: string): Promise<EditingRow | null> {
  const [row] = await db.run<EditingRow>(FOR_EDITING, [id, accountId]);
  return row ?? null;
}

/**
 * The editor page's row: the article without its large texts. The Markdown comes only when it
 * has at most `$3` characters (a longer one is loaded by the editor once the page shows, from
 * `readMarkdownRow`), the published version without its html (the page compares its fields),
 * and whether a version waits for moderation (its frame loads it). Decoding two megabytes of
 * text takes the one event loop about 10 ms on a small machine: the page reads none it does
 * not show.
 */
export type EditorPageRow = PostRowWith<'moderation_note'> & {
  markdown: string | null;
  published_fields: Omit<PostVersion, 'html'> | null;
  has_submitted: boolean;
};

const FOR_EDITOR_PAGE = statement(
  'post_for_editor_page',
  `SELECT ${POST_SELECT}, CASE WHEN char_length(markdown) <= $3 THEN markdown END AS markdown,
          published_version - 'html' AS published_fields, submitted_version IS NOT NULL AS has_submitted,
          moderation_note
     FROM posts WHERE ${LIVE_OWN}`,
);

export async function readEditorPageRow(
  db: StatementRunner,
  accountId: string,
  id: string,
  markdownUpTo: number,
): Promise<EditorPageRow | null> {
  const [row] = await db.run<EditorPageRow>(FOR_EDITOR_PAGE, [id, accountId, markdownUpTo]);
  return row ?? null;
}

/** The article and its Markdown alone (the editor's deferred text, with what its ETag is made of). */
const MARKDOWN_OF = statement('post_markdown', `SELECT ${POST_SELECT}, markdown FROM posts WHERE ${LIVE_OWN}`);

export async function readMarkdownRow(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<PostRowWith<'markdown'> | null> {
  const [row] = await db.run<PostRowWith<'markdown'>>(MARKDOWN_OF, [id, accountId]);
  return row ?? null;
}

/**
 * One version a preview may show of a live article of any account (the caller decides who may
 * see which): `$2` names it (`working`, `published`, `submitted`); only that one is read, its
 * html as text beside its other fields (not inside them: JSON.parse of two megabytes would add
 * to the event loop's time decoding them). OFFSET 0 keeps the chosen version a subquery of its
 * own, built once, not once for each of the two columns taken from it.
 */
export interface PreviewRow {
  account_id: string;
  status: PostStatus;
  version: PostVersion | null;
}

const FOR_PREVIEW = statement(
  'post_version_for_preview',
  `SELECT account_id, status, v - 'html' AS fields, v ->> 'html' AS html
     FROM posts,
          LATERAL (SELECT CASE $2::text WHEN 'working' THEN ${WORKING_VERSION}
                                        WHEN 'published' THEN published_version
                                        WHEN 'submitted' THEN submitted_version END AS v
                   OFFSET 0) AS chosen
    WHERE id = $1 AND deleted_at IS NULL`,
);

export async function readPreviewRow(
  db: StatementRunner,
  id: string,
  version: 'working' | 'published' | 'submitted',
): Promise<PreviewRow | null> {
  const [row] = await db.run<{
    account_id: string;
    status: PostStatus;
    fields: Omit<PostVersion, 'html'> | null;
    html: string | null;
  }>(FOR_PREVIEW, [id, version]);
  if (!row) return null;
  const { fields, html } = row;
  return {
    account_id: row.account_id,
    status: row.status,
    version: fields && html !== null ? { ...fields, html } : null,
  };
}

const COUNT_BY_STATUS = statement(
  'posts_count_by_status',
  'SELECT status, count(*)::int AS n FROM posts WHERE account_id = $1 AND deleted_at IS NULL GROUP BY status',
);

/** Live articles per status (the console's filter tabs). */
export async function countPostsByStatus(db: StatementRunner, accountId: string): Promise<Record<PostStatus, number>> {
  const counts: Record<PostStatus, number> = { draft: 0, pending_moderation: 0, published: 0 };
  for (const r of await db.run<{ status: PostStatus; n: number }>(COUNT_BY_STATUS, [accountId])) counts[r.status] = r.n;
  return counts;
}

// The console's list: search and sorts ---------------------------------------------------------

export const ARTICLE_SORTS = ['created', 'updated', 'published', 'popularity'] as const;
export type ArticleSort = (typeof ARTICLE_SORTS)[number];

/**
 * The words of an article a search looks in: title, slug (its words) and tag names, folded by
 * the `simple` configuration (no stemming: any language alike). The GIN index of migration
 * `article_search` is on exactly this expression.
 */
const SEARCH_DOCUMENT = `to_tsvector('simple', title || ' ' || replace(slug, '-', ' ') || ' ' || jsonb_path_query_array(tags, '$[*].name')::text)`;

/**
 * Each sort's column; articles never published sort after the published ones. Popularity ties
 * (every new article's score is 0) go newest first, by `created_at`: in id order they looked
 * random.
 */
const ORDER: Record<ArticleSort, { column: string; nullsLast: boolean; tie?: string }> = {
  created: { column: 'created_at', nullsLast: false },
  updated: { column: 'updated_at', nullsLast: false },
  published: { column: 'published_at', nullsLast: true },
  popularity: { column: 'popularity', nullsLast: false, tie: 'created_at' },
};

/**
 * Where a page goes on: after the sort key `v` (null: a never-published article), the tie
 * key `t` of a sort that has one (popularity: the creation time), and `id`.
 */
export interface ListPosition {
  v: string | number | null;
  t?: string;
  id: string;
}

/**
 * The statement of one list shape (sort, status filter, search, position), built once per shape
 * and named after it, so each is planned once and none is made of text from a request.
 */
const listStatements = new Map<string, Statement>();

function listStatement(
  sort: ArticleSort,
  status: boolean,
  search: boolean,
  after: 'none' | 'value' | 'null',
): Statement {
  const name = `posts_list_${sort}_${status ? 's' : 'a'}_${search ? 'q' : 'n'}_${after}`;
  const known = listStatements.get(name);
  if (known) return known;
  const { column, nullsLast, tie } = ORDER[sort];
  const order = (key: string, tieKey = tie) =>
    `${key} DESC${nullsLast ? ' NULLS LAST' : ''}, ${tieKey ? `${tieKey} DESC, ` : ''}id DESC`;
  const where = ['account_id = $1', 'deleted_at IS NULL'];
  let n = 2;
  if (status) where.push(`status = $${n++}`);
  let tsquery = '';
  if (search) tsquery = `$${n++}`;
  // The position's parameters: its value, its tie key (a sort with one), its id.
  const positionParams = tie ? 3 : 2;
  const cursor = (key: string, tieKey = tie): string => {
    if (after === 'none') return 'true';
    // The position's value is sent (null) in this shape too, so it must have a type here.
    if (after === 'null') return `${key} IS NULL AND $${n}::text IS NULL AND id < $${n + 1}::uuid`;
    const cast = sort === 'popularity' ? '::int' : '::timestamptz';
    // Every key descending: the row comparison is the order's own.
    if (tieKey) return `(${key}, ${tieKey}, id) < ($${n}${cast}, $${n + 1}::timestamptz, $${n + 2}::uuid)`;
    return `(${key} < $${n}${cast} OR (${key} = $${n}${cast} AND id < $${n + 1}::uuid)${nullsLast ? ` OR ${key} IS NULL` : ''})`;
  };
  const limit = after === 'none' ? `$${n}` : `$${n + positionParams}`;
  // A search finds its matches through the GIN index, with their sort key, and sorts only those
  // (MATERIALIZED: left to itself the planner may walk the sort's index and test every article's
  // words, a second for a word no article has); the page's rows are read last.
  const text = search
    ? `WITH found AS MATERIALIZED (
         SELECT id, ${column} AS k${tie ? `, ${tie} AS k2` : ''} FROM posts WHERE ${where.join(' AND ')} AND ${SEARCH_DOCUMENT} @@ to_tsquery('simple', ${tsquery})),
       page AS (SELECT id FROM found WHERE ${cursor('k', tie && 'k2')} ORDER BY ${order('k', tie && 'k2')} LIMIT ${limit})
       SELECT ${POST_SELECT} FROM posts JOIN page USING (id) ORDER BY ${order(column)}`
    : `SELECT ${POST_SELECT} FROM posts WHERE ${where.join(' AND ')} AND ${cursor(column)} ORDER BY ${order(column)} LIMIT ${limit}`;
  const st = statement(name, text);
  listStatements.set(name, st);
  return st;
}

/** Up to `count` of the author's articles in the sort's order, matching `tsquery` when given, after `position`. */
export async function listPostRows(
  db: StatementRunner,
  accountId: string,
  opts: { sort: ArticleSort; status?: PostStatus; tsquery?: string; position?: ListPosition; count: number },
): Promise<PostRow[]> {
  const after = !opts.position ? 'none' : opts.position.v === null ? 'null' : 'value';
  const st = listStatement(opts.sort, opts.status !== undefined, opts.tsquery !== undefined, after);
  const values: unknown[] = [accountId];
  if (opts.status) values.push(opts.status);
  if (opts.tsquery !== undefined) values.push(opts.tsquery);
  if (opts.position) {
    values.push(opts.position.v);
    if (ORDER[opts.sort].tie && opts.position.v !== null) values.push(opts.position.t);
    values.push(opts.position.id);
  }
  values.push(opts.count);
  return db.run<PostRow>(st, values);
}

/** Where the next page starts after `row`, in the sort's order. */
export function positionAfter(row: PostRow, sort: ArticleSort): ListPosition {
  const position: ListPosition = { v: sortKeyOf(row, sort), id: row.id };
  if (ORDER[sort].tie) position.t = row.created_at;
  return position;
}

/** The value a row sorts by. */
function sortKeyOf(row: PostRow, sort: ArticleSort): string | number | null {
  switch (sort) {
    case 'created':
      return row.created_at;
    case 'updated':
      return row.updated_at;
    case 'published':
      return row.published_at;
    case 'popularity':
      return row.popularity;
  }
}
