import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import type { PostStatus } from '../../db/entities';

/**
 * The console's article list: found by words of the title, the slug or a tag, sorted by
 * creation, last save, publication or popularity, 20 at a time with a cursor. Console-only (the
 * REST list is `GET /posts`, unchanged).
 *
 * Fast at 100,000 articles of one author (bench/console-search.ts): each sort has an index in
 * its order (Migration20261126100100_article_search), so a page is read in order and stopped
 * after 20; a search first finds its matches with the GIN index of the words of title, slug and
 * tag names (`SEARCH_DOCUMENT`, the same expression as the index's), then sorts only those.
 * Words match as prefixes, every word must match ("harb tide" finds "Harbour tides").
 */

export const ARTICLE_SORTS = ['created', 'updated', 'published', 'popularity'] as const;
export type ArticleSort = (typeof ARTICLE_SORTS)[number];

/** The words of an article that a search matches: the index is on exactly this expression. */
const SEARCH_DOCUMENT = `to_tsvector('simple', title || ' ' || replace(slug, '-', ' ') || ' ' || jsonb_path_query_array(tags, '$[*].name')::text)`;

/** Column and direction of each sort; ties (and a second page) go by id, so paging never skips. */
const ORDER: Record<ArticleSort, { column: string; nullsLast: boolean }> = {
  created: { column: 'created_at', nullsLast: false },
  updated: { column: 'updated_at', nullsLast: false },
  published: { column: 'published_at', nullsLast: true },
  popularity: { column: 'popularity', nullsLast: false },
};

export interface ArticleListItem {
  id: string;
  title: string;
  slug: string;
  status: PostStatus;
  has_unpublished_changes: boolean;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  tags: { slug: string; name: string }[];
  like_count: number;
  comment_count: number;
  save_count: number;
  impression_count: number;
  open_count: number;
  read_count: number;
  complete_count: number;
  popularity: number;
}

export interface ArticleQuery {
  q?: string;
  sort: ArticleSort;
  status?: PostStatus;
  /** From the previous page's `next`: where the list goes on. */
  cursor?: string;
}

/** `q` as a prefix query of its words (letters and digits only, so nothing else reaches to_tsquery); null: no words. */
function searchQuery(q: string | undefined): string | null {
  const words =
    (q ?? '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, 8) ?? [];
  return words.length ? words.map((w) => `${w}:*`).join(' & ') : null;
}

type Cursor = { v: string | number | null; id: string };

function readCursor(cursor: string | undefined): Cursor | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor;
    const valueOk = parsed.v === null || typeof parsed.v === 'string' || typeof parsed.v === 'number';
    return valueOk && typeof parsed.id === 'string' && /^[0-9a-f-]{36}$/.test(parsed.id) ? parsed : null;
  } catch {
    return null;
  }
}

const COLUMNS = `id, title, slug, status, has_unpublished_changes, created_at, updated_at, published_at, tags,
  like_count, comment_count, save_count, impression_count, open_count, read_count, complete_count, popularity`;

const PAGE = 20;

/** One page of the author's live articles, and the cursor of the next (null on the last). */
export async function listArticles(
  em: EntityManager,
  accountId: string,
  query: ArticleQuery,
): Promise<{ items: ArticleListItem[]; next: string | null }> {
  const { column, nullsLast } = ORDER[query.sort];
  const order = (key: string) => `${key} DESC${nullsLast ? ' NULLS LAST' : ''}, id DESC`;
  const where = ['account_id = ?', 'deleted_at IS NULL'];
  const params: unknown[] = [accountId];
  if (query.status) {
    where.push('status = ?');
    params.push(query.status);
  }
  /** After (v, id) in the sort's order: the keyset condition on `key`. */
  const after = readCursor(query.cursor);
  const afterCursor = (key: string): [string, unknown[]] =>
    !after
      ? ['true', []]
      : after.v === null
        ? [`${key} IS NULL AND id < ?`, [after.id]]
        : [
            `(${key} < ? OR (${key} = ? AND id < ?)${nullsLast ? ` OR ${key} IS NULL` : ''})`,
            [after.v, after.v, after.id],
          ];

  const tsquery = searchQuery(query.q);
  let text: string;
  if (tsquery) {
    // A search finds its matches through the GIN index, with their sort key, and sorts only
    // those (MATERIALIZED: left to itself the planner may walk the sort's index and test every
    // article's words, a second for a word no article has); the page's rows are read last.
    const [cursorSql, cursorParams] = afterCursor('k');
    text = `WITH found AS MATERIALIZED (
              SELECT id, ${column} AS k FROM posts
               WHERE ${where.join(' AND ')} AND ${SEARCH_DOCUMENT} @@ to_tsquery('simple', ?)),
            page AS (SELECT id FROM found WHERE ${cursorSql} ORDER BY ${order('k')} LIMIT ${PAGE + 1})
            SELECT ${COLUMNS} FROM posts JOIN page USING (id) ORDER BY ${order(column)}`;
    params.push(tsquery, ...cursorParams);
  } else {
    const [cursorSql, cursorParams] = afterCursor(column);
    text = `SELECT ${COLUMNS} FROM posts WHERE ${where.join(' AND ')} AND ${cursorSql}
             ORDER BY ${order(column)} LIMIT ${PAGE + 1}`;
    params.push(...cursorParams);
  }
  const rows = await sql<(ArticleListItem & Record<string, unknown>)[]>(em, text, params);
  const items = rows.slice(0, PAGE).map(listItem);
  const last = rows.length > PAGE ? rows[PAGE - 1]! : null;
  const value = last?.[column];
  const next = last
    ? Buffer.from(
        JSON.stringify({ v: value instanceof Date ? value.toISOString() : (value ?? null), id: last.id }),
      ).toString('base64url')
    : null;
  return { items, next };
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null ? null : String(v));

function listItem(row: ArticleListItem & Record<string, unknown>): ArticleListItem {
  return {
    ...row,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    published_at: iso(row.published_at),
  };
}
