import 'server-only';
import { isoTimestamp, type StatementRunner } from '../../db/statements';
import { ARTICLE_SORTS, listPostRows, sortKeyOf, type ArticleSort, type ListPosition } from '../data/posts/reads';
import type { PostRow, PostStatus } from '../data/posts/rows';

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

export { ARTICLE_SORTS, type ArticleSort };

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

type Cursor = ListPosition;

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

const PAGE = 20;

/** A page of the author's articles in the sort's order, matching the search if any, and where the next page starts. */
export async function listArticles(
  db: StatementRunner,
  accountId: string,
  query: ArticleQuery,
): Promise<{ items: ArticleListItem[]; next: string | null }> {
  const tsquery = searchQuery(query.q);
  const rows = await listPostRows(db, accountId, {
    sort: query.sort,
    status: query.status,
    tsquery: tsquery ?? undefined,
    position: readCursor(query.cursor) ?? undefined,
    count: PAGE + 1,
  });
  const items = rows.slice(0, PAGE).map(listItem);
  const last = rows.length > PAGE ? rows[PAGE - 1]! : null;
  const next = last
    ? Buffer.from(JSON.stringify({ v: sortKeyOf(last, query.sort), id: last.id } satisfies Cursor)).toString(
        'base64url',
      )
    : null;
  return { items, next };
}

function listItem(row: PostRow): ArticleListItem {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    status: row.status,
    has_unpublished_changes: row.has_unpublished_changes,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    published_at: row.published_at ? isoTimestamp(row.published_at) : null,
    tags: row.tags,
    like_count: row.like_count,
    comment_count: row.comment_count,
    save_count: row.save_count,
    impression_count: row.impression_count,
    open_count: row.open_count,
    read_count: row.read_count,
    complete_count: row.complete_count,
    popularity: row.popularity,
  };
}
