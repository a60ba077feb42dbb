import type { Post } from '../../db/entities';

/** AuthorPost as SPEC "Resources and their fields" lists it, in that order. */
export interface AuthorPostJson {
  id: string;
  public_id: string;
  canonical_path: string;
  title: string;
  subtitle: string | null;
  slug: string;
  status: Post['status'];
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
  html?: string;
  rehost_failed?: string[];
  warnings?: string[];
}

export function canonicalPath(slug: string, publicId: string): string {
  return `/${slug}-${publicId}`;
}

export interface ViewExtras {
  html?: string;
  rehostFailed?: string[];
  warnings?: string[];
}

/**
 * `published_at` is shown only while the article is published: SPEC says it is null for
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
  if (extras.rehostFailed && extras.rehostFailed.length > 0) out.rehost_failed = extras.rehostFailed;
  if (extras.warnings && extras.warnings.length > 0) out.warnings = extras.warnings;
  return out;
}
