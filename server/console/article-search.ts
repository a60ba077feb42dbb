import 'server-only';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isoTimestamp, type StatementRunner } from '../../db/statements';
import { derivedKey } from '../foundation/secrets';
import { isUuid } from '../foundation/uuid';
import { ARTICLE_SORTS, listPostRows, positionAfter, type ArticleSort, type ListPosition } from '../data/posts/reads';
import type { PostRow } from '../data/posts/rows';
import type { PostStatus } from '../model/post';
import { authorPostFromRow, type AuthorPostJson } from '../services/posts/post-view';

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
 *
 * The cursor in the page's address (`?cursor=`) is signed: HMAC of the account, the sort and the
 * position under a key derived from the application secret. A cursor this service did not give
 * this account for this sort (edited, forged, truncated, from another sort or an older format)
 * never reaches SQL: the list starts again from the first page and says so (`cursorRefused`),
 * and nothing is logged as an error (it is the address that is wrong, not the service).
 */

export { ARTICLE_SORTS, type ArticleSort };

/**
 * An article of the list: the author's view of it, made by the posts aggregate's one mapper
 * (services/posts/post-view.ts), so every field follows the API's rule (`published_at` is null
 * unless the article is published), and one field of the list's own.
 */
export type ArticleListItem = AuthorPostJson & {
  /**
   * When the version readers see was published, while one is (the "Last published" sort's key):
   * unlike `published_at`, it stays while a newer version waits for moderation, because the
   * earlier one is still public. Null when nothing is public.
   */
  last_published_at: string | null;
};

export interface ArticleQuery {
  q?: string;
  sort: ArticleSort;
  status?: PostStatus;
  /** From the previous page's `next`: where the list goes on. */
  cursor?: string;
}

export interface ArticlePage {
  items: ArticleListItem[];
  /** The cursor of the next page; null on the last one. */
  next: string | null;
  /** A cursor was given but is not one this list issued: `items` is the first page. */
  cursorRefused: boolean;
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

/** What a cursor carries: its sort, and the last row's sort key (with its tie key, popularity's) and id. */
interface SignedPosition extends ListPosition {
  s: ArticleSort;
}

let cursorKey: Buffer | undefined;

function mac(accountId: string, payload: string): string {
  cursorKey ??= derivedKey('console-list-cursor');
  return createHmac('sha256', cursorKey).update(`${accountId}\n${payload}`).digest('base64url').slice(0, 22);
}

function writeCursor(accountId: string, position: SignedPosition): string {
  const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
  return `${payload}.${mac(accountId, payload)}`;
}

/** A PostgreSQL timestamptz as text (how rows carry them), or null where the sort allows one. */
const TIMESTAMP_TEXT = /^\d{4,}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d)?|Z)?$/;
const INT4_MAX = 2 ** 31 - 1;

/** Whether `v` is a sort key `sort` can have (the SQL casts it: an integer, or a timestamp). */
function keyFits(sort: ArticleSort, v: unknown): boolean {
  if (sort === 'popularity') return Number.isSafeInteger(v) && Math.abs(v as number) <= INT4_MAX;
  if (v === null) return sort === 'published';
  return typeof v === 'string' && v.length <= 40 && TIMESTAMP_TEXT.test(v);
}

/**
 * The position a cursor names, if this service signed it for this account and sort; undefined
 * for no cursor, 'refused' for any other.
 */
function readCursor(
  accountId: string,
  sort: ArticleSort,
  cursor: string | undefined,
): ListPosition | undefined | 'refused' {
  if (!cursor) return undefined;
  const dot = cursor.indexOf('.');
  if (dot <= 0 || cursor.length > 512) return 'refused';
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(mac(accountId, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'refused';
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return 'refused';
  }
  const position = parsed as Partial<SignedPosition> | null;
  if (!position || position.s !== sort || !isUuid(position.id) || !keyFits(sort, position.v)) return 'refused';
  if (sort !== 'popularity') return { v: position.v!, id: position.id };
  // Popularity ties go by creation time: its cursor carries that too (an older one does not page).
  if (!keyFits('created', position.t)) return 'refused';
  return { v: position.v!, t: position.t, id: position.id };
}

const PAGE = 20;

/** A page of the author's articles in the sort's order, matching the search if any, and where the next page starts. */
export async function listArticles(db: StatementRunner, accountId: string, query: ArticleQuery): Promise<ArticlePage> {
  const tsquery = searchQuery(query.q);
  const position = readCursor(accountId, query.sort, query.cursor);
  const rows = await listPostRows(db, accountId, {
    sort: query.sort,
    status: query.status,
    tsquery: tsquery ?? undefined,
    position: position === 'refused' ? undefined : position,
    count: PAGE + 1,
  });
  const items = rows.slice(0, PAGE).map(listItem);
  const last = rows.length > PAGE ? rows[PAGE - 1]! : null;
  const next = last ? writeCursor(accountId, { s: query.sort, ...positionAfter(last, query.sort) }) : null;
  return { items, next, cursorRefused: position === 'refused' };
}

function listItem(row: PostRow): ArticleListItem {
  // The column is the public version's publication time: set on publish and approval, kept while
  // a newer version waits for moderation, cleared on unpublish (services/posts/publication.ts).
  return { ...authorPostFromRow(row), last_published_at: row.published_at ? isoTimestamp(row.published_at) : null };
}
