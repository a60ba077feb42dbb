import type { z } from 'zod';
import type { Post, PostVersion } from '../../db/entities';
import { isoTimestamp } from '../../db/statements';
import type { AuthorPostWriteSchema } from './author-post.schema';

/**
 * AuthorPost as the API answers it, fields in the contract's order: inferred from the zod
 * schema the REST output is validated with, plus `html` (GET /posts/{id} and the console).
 */
export type AuthorPostJson = z.infer<typeof AuthorPostWriteSchema> & {
  html?: string;
  /**
   * Why each `rehost_failed` URL was not stored, keyed as written. Domain-only: the REST output
   * schema strips it (the contract's response names the URLs only); the console shows it.
   */
  rehostCauses?: Record<string, string>;
};

export function canonicalPath(slug: string, publicId: string): string {
  return `/${slug}-${publicId}`;
}

/** The working version as readers would get it on publish: what publish snapshots and the console previews. */
export function workingVersion(post: Post): PostVersion {
  return {
    title: post.title,
    subtitle: post.subtitle ?? null,
    slug: post.slug,
    html: post.html,
    tags: post.tags,
    cover:
      post.coverUrl && post.coverWidth && post.coverHeight
        ? { url: post.coverUrl, width: post.coverWidth, height: post.coverHeight }
        : null,
  };
}

export interface ViewExtras {
  html?: string;
  rehostFailed?: string[];
  /** Why each `rehostFailed` URL was not stored (for the console; the REST output drops it). */
  rehostCauses?: Record<string, string>;
  warnings?: string[];
}

/** The `posts` columns an AuthorPost is made of, as the read statements return them. */
export const AUTHOR_POST_COLUMNS =
  'id, public_id, slug, title, subtitle, tags, cover_asset_id, cover_url, cover_width, cover_height, status, ' +
  'has_unpublished_changes, published_at, created_at, updated_at, like_count, comment_count, save_count, popularity, ' +
  'impression_count, open_count, read_count, complete_count';

/** One row of AUTHOR_POST_COLUMNS; timestamps are PostgreSQL's text (see isoTimestamp). */
export type AuthorPostRow = Omit<
  AuthorPostJson,
  'canonical_path' | 'html' | 'rehost_failed' | 'rehostCauses' | 'warnings'
>;

/**
 * A read row straight to JSON, with the same rules as `toAuthorPost` (no entity, no Date):
 * the hot read routes skip the ORM's hydration.
 */
export function authorPostFromRow(row: AuthorPostRow): AuthorPostJson {
  return {
    id: row.id,
    public_id: row.public_id,
    canonical_path: canonicalPath(row.slug, row.public_id),
    title: row.title,
    subtitle: row.subtitle,
    slug: row.slug,
    status: row.status,
    tags: row.tags,
    cover_asset_id: row.cover_asset_id,
    cover_url: row.cover_url,
    cover_width: row.cover_width,
    cover_height: row.cover_height,
    published_at: row.status === 'published' && row.published_at ? isoTimestamp(row.published_at) : null,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    has_unpublished_changes: row.has_unpublished_changes,
    like_count: row.like_count,
    comment_count: row.comment_count,
    save_count: row.save_count,
    popularity: row.popularity,
    impression_count: row.impression_count,
    open_count: row.open_count,
    read_count: row.read_count,
    complete_count: row.complete_count,
  };
}

/**
 * `published_at` is shown only while the article is published: the contract says it is null for
 * draft and pending_moderation even when an earlier version is still public.
 * `rehost_failed` and `warnings` are omitted when empty, never `[]`.
 */
export function toAuthorPost(post: Post, extras: ViewExtras = {}): AuthorPostJson {
  const out: AuthorPostJson = {
    id: post.id,
    public_id: post.publicId,
    canonical_path: canonicalPath(post.slug, post.publicId),
    title: post.title,
    subtitle: post.subtitle ?? null,
    slug: post.slug,
    status: post.status,
    tags: post.tags.map((t) => ({ slug: t.slug, name: t.name })),
    cover_asset_id: post.coverAssetId ?? null,
    cover_url: post.coverUrl ?? null,
    cover_width: post.coverWidth ?? null,
    cover_height: post.coverHeight ?? null,
    published_at: post.status === 'published' && post.publishedAt ? post.publishedAt.toISOString() : null,
    created_at: post.createdAt.toISOString(),
    updated_at: post.updatedAt.toISOString(),
    has_unpublished_changes: post.hasUnpublishedChanges,
    like_count: post.likeCount,
    comment_count: post.commentCount,
    save_count: post.saveCount,
    popularity: post.popularity,
    impression_count: post.impressionCount,
    open_count: post.openCount,
    read_count: post.readCount,
    complete_count: post.completeCount,
  };
  if (extras.html !== undefined) out.html = extras.html;
  if (extras.rehostFailed && extras.rehostFailed.length > 0) {
    out.rehost_failed = extras.rehostFailed;
    if (extras.rehostCauses) out.rehostCauses = extras.rehostCauses;
  }
  if (extras.warnings && extras.warnings.length > 0) out.warnings = extras.warnings;
  return out;
}
