import type { PostStatus } from '../../model/post';

/**
 * The posts aggregate's one row shape: the `posts` columns an AuthorPost is made of, as every
 * statement of the aggregate returns them (timestamps as PostgreSQL's text; `isoTimestamp`
 * makes them ISO 8601 where they are shown). Statements that need more of the row select the
 * body columns (`PostBody`) beside it, under the same names. The one mapper to the API's
 * AuthorPost is server/services/posts/post-view.ts's; a unit test holds POST_COLUMNS to AuthorPost's
 * fields.
 */
export interface PostRow {
  id: string;
  public_id: string;
  title: string;
  subtitle: string | null;
  slug: string;
  status: PostStatus;
  tags: { slug: string; name: string }[];
  cover_asset_id: string | null;
  cover_url: string | null;
  cover_width: number | null;
  cover_height: number | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  has_unpublished_changes: boolean;
  like_count: number;
  comment_count: number;
  save_count: number;
  popularity: number;
  impression_count: number;
  open_count: number;
  read_count: number;
  complete_count: number;
}

/** The row's columns, in AuthorPost's order (without `canonical_path`, which is made of two of them). */
export const POST_COLUMNS = [
  'id',
  'public_id',
  'title',
  'subtitle',
  'slug',
  'status',
  'tags',
  'cover_asset_id',
  'cover_url',
  'cover_width',
  'cover_height',
  'published_at',
  'created_at',
  'updated_at',
  'has_unpublished_changes',
  'like_count',
  'comment_count',
  'save_count',
  'popularity',
  'impression_count',
  'open_count',
  'read_count',
  'complete_count',
] as const satisfies readonly (keyof PostRow)[];

/** The columns, for a SELECT or a RETURNING list. */
export const POST_SELECT = POST_COLUMNS.join(', ');

/** What readers see: a frozen copy of the working version taken at publish (or approval) time. */
export interface PostVersion {
  title: string;
  subtitle: string | null;
  slug: string;
  html: string;
  tags: { slug: string; name: string }[];
  cover: { url: string; width: number; height: number } | null;
}

/** The rest of a post's columns, selected where a statement needs them. */
export interface PostBody {
  markdown: string;
  html: string;
  published_version: PostVersion | null;
  submitted_version: PostVersion | null;
  moderation_note: string | null;
  account_id: string;
}

/**
 * The row with some of the body's columns beside it, under their names: how a statement that
 * selects more than the row says what it returns (the one row shape, not a type per statement).
 */
export type PostRowWith<K extends keyof PostBody> = PostRow & Pick<PostBody, K>;

/**
 * The fields of the version a write (an edit, a move between states) was decided on: the ETag's
 * (services/posts/post-etag.ts), as read.
 */
export type VersionSeen = Pick<PostRow, 'updated_at' | 'status' | 'has_unpublished_changes' | 'published_at'>;

/**
 * The working version as readers would get it on publish, made by PostgreSQL from the row's own
 * columns: what publish and approval snapshot (no text travels through the service and back,
 * and it is the row as it is in the statement that writes it) and what the console previews.
 */
export const WORKING_VERSION = `jsonb_build_object(
    'title', title, 'subtitle', subtitle, 'slug', slug, 'html', html, 'tags', tags,
    'cover', CASE WHEN cover_url IS NOT NULL AND cover_width IS NOT NULL AND cover_height IS NOT NULL
                  THEN jsonb_build_object('url', cover_url, 'width', cover_width, 'height', cover_height) END)`;

/** The live article of an author: `$1` its id, `$2` the author. */
export const LIVE_OWN = 'id = $1 AND account_id = $2 AND deleted_at IS NULL';
