import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MediaEntity, PostEntity, type Post, type PostStatus, type PostVersion } from '../../db/entities';
import { sql } from '../../db/sql';
import { ContentRejectedError, renderArticle, rewriteImageSources } from '../content';
import { ApiError, badRequest, conflict, notFound } from '../errors';
import { decodeCursor, encodeCursor } from './cursor';
import { toAuthorPost, type AuthorPostJson } from './post-view';
import { newPublicId } from './public-id';
import { noRehost, type Rehoster, type RehostOutcome } from './rehost-port';
import { isValidSlug, slugFromText } from './slugs';
import { findOrCreateTags, normalizeTagNames, replacePostTags } from './tags';

/**
 * Articles of one author (contract: "AuthorPost", "States and transitions", and the decisions in docs/api.md).
 * Knows nothing of HTTP: callers pass the author's id and already-shaped input; every write
 * is one transaction, so nothing is half-applied when the database goes away mid-way.
 */

export interface PostWriteInput {
  title?: string;
  markdown?: string;
  subtitle?: string | null;
  tags?: string[];
  slug?: string;
  cover_asset_id?: string | null;
  cover_url?: string | null;
}

export interface WriteContext {
  em: EntityManager;
  accountId: string;
  rehoster?: Rehoster;
}

const LOCAL_MEDIA_PATH = /^\/api\/media\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The content pipeline's rejections are the author's 400s, with its message. */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ContentRejectedError) throw badRequest(err.message);
    throw err;
  }
}

interface CoverChoice {
  assetId: string | null;
  url: string | null;
  width: number | null;
  height: number | null;
}

async function coverFromAsset(em: EntityManager, accountId: string, assetId: string, field: string): Promise<CoverChoice> {
  const media = await em.findOne(MediaEntity, { id: assetId, accountId });
  if (!media || media.kind !== 'image') throw badRequest(`${field}: no image ${assetId} among your media`);
  return { assetId: media.id, url: `/api/media/${media.id}`, width: media.width, height: media.height };
}

/**
 * Converts the body, rehosts its external images and the cover URL, then substitutes the
 * stored addresses in the converted html (alt kept; no second conversion).
 * Rehost never fails the write (contract: rehost rule 5).
 */
async function prepareBody(
  ctx: WriteContext,
  markdown: string,
  title: string,
  coverUrl: string | undefined,
): Promise<{ html: string; outcome: RehostOutcome }> {
  const first = await asBadRequest(renderArticle({ markdown, title }));
  const rehoster = ctx.rehoster ?? noRehost;
  const urls: string[] = coverUrl ? [...first.externalImages, coverUrl] : first.externalImages;
  if (urls.length === 0) return { html: first.html, outcome: { stored: {}, failed: [], warnings: [] } };
  const outcome = await rehoster.rehost(ctx.accountId, [...new Set(urls)]);
  const rewrites: Record<string, string> = {};
  for (const url of first.externalImages) {
    const media = outcome.stored[url];
    if (media) rewrites[url] = `/api/media/${media.id}`;
  }
  const html = await asBadRequest(rewriteImageSources(first.html, rewrites));
  return { html, outcome };
}

async function resolveCover(ctx: WriteContext, input: PostWriteInput, outcome: RehostOutcome): Promise<CoverChoice | undefined> {
  if (input.cover_asset_id !== undefined) {
    if (input.cover_asset_id === null) return { assetId: null, url: null, width: null, height: null };
    return coverFromAsset(ctx.em, ctx.accountId, input.cover_asset_id, 'cover_asset_id');
  }
  if (input.cover_url === undefined) return undefined;
  if (input.cover_url === null) return { assetId: null, url: null, width: null, height: null };
  const local = LOCAL_MEDIA_PATH.exec(input.cover_url);
  if (local) return coverFromAsset(ctx.em, ctx.accountId, local[1]!.toLowerCase(), 'cover_url');
  const media = outcome.stored[input.cover_url];
  // the contract rehost rule 3: a cover URL that cannot be stored simply creates no cover.
  if (!media) return undefined;
  return { assetId: media.id, url: `/api/media/${media.id}`, width: media.width, height: media.height };
}

function validateCoverInput(input: PostWriteInput) {
  if (input.cover_asset_id != null && input.cover_url != null) {
    throw badRequest('cover_asset_id and cover_url: send one of them, not both');
  }
  if (input.cover_url != null && !LOCAL_MEDIA_PATH.test(input.cover_url)) {
    let url: URL;
    try {
      url = new URL(input.cover_url);
    } catch {
      throw badRequest('cover_url: must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('cover_url: must be an http(s) URL');
  }
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint));
}

/** Serialises derivations of one base slug per author until the transaction ends. */
async function lockedDerivedSlug(tx: EntityManager, accountId: string, base: string): Promise<string> {
  await sql(tx, 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`derived-slug:${accountId}:${base}`]);
  return freeDerivedSlug(tx, accountId, base);
}

/** A derived slug avoids the author's live slugs by a numeric suffix; a requested one gives 409. */
async function freeDerivedSlug(em: EntityManager, accountId: string, base: string): Promise<string> {
  const rows = await sql<{ slug: string }[]>(
    em,
    `SELECT slug FROM posts WHERE account_id = ? AND deleted_at IS NULL AND (slug = ? OR slug LIKE ?)`,
    [accountId, base, `${base}-%`],
  );
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export async function createPost(ctx: WriteContext, input: Required<Pick<PostWriteInput, 'title' | 'markdown'>> & PostWriteInput) {
  validateCoverInput(input);
  if (input.slug !== undefined && !isValidSlug(input.slug)) throw badRequest(slugProblem(input.slug));
  const tagNames = normalizeTagNames(input.tags ?? []);
  const { html, outcome } = await prepareBody(ctx, input.markdown, input.title, input.cover_url ?? undefined);
  const cover = await resolveCover(ctx, input, outcome);

  // A derived slug is picked inside the transaction under a per-author, per-base-slug advisory
  // lock, so concurrent writes with one title take -2, -3… in turn instead of colliding. A
  // collision with a concurrent PATCH that sets the same slug explicitly is retried.
  for (let attempt = 1; ; attempt++) {
    try {
      const post = await ctx.em.transactional(async (tx) => {
        const slug = input.slug ?? (await lockedDerivedSlug(tx, ctx.accountId, slugFromText(input.title)));
        const tags = await findOrCreateTags(tx, tagNames);
        const now = new Date();
        const post = tx.create(PostEntity, {
          id: randomUUID(),
          accountId: ctx.accountId,
          publicId: newPublicId(),
          slug,
          title: input.title,
          subtitle: input.subtitle ?? null,
          markdown: input.markdown,
          html,
          tags: tags.map((t) => ({ slug: t.slug, name: t.name })),
          coverAssetId: cover?.assetId ?? null,
          coverUrl: cover?.url ?? null,
          coverWidth: cover?.width ?? null,
          coverHeight: cover?.height ?? null,
          status: 'draft',
          hasUnpublishedChanges: false,
          publishedAt: null,
          publishedVersion: null,
          submittedVersion: null,
          moderationNote: null,
          likeCount: 0,
          commentCount: 0,
          saveCount: 0,
          popularity: 0,
          impressionCount: 0,
          openCount: 0,
          readCount: 0,
          completeCount: 0,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        });
        await tx.flush();
        await replacePostTags(tx, post.id, tags);
        return post;
      });
      return toAuthorPost(post, { rehostFailed: outcome.failed, warnings: outcome.warnings });
    } catch (err) {
      if (!isUniqueViolation(err, 'posts_author_slug_live')) throw err;
      if (input.slug !== undefined) throw conflict(`slug: "${input.slug}" is already used by one of your articles`);
      if (attempt >= 3) throw conflict('slug: could not derive a free slug from the title; send one');
    }
  }
}

function slugProblem(slug: string) {
  return `slug: "${slug.slice(0, 120)}" is not a valid slug (lowercase letters, digits and single hyphens, at most 100 characters)`;
}

async function findOwn(em: EntityManager, accountId: string, id: string, populateBody = false): Promise<Post> {
  // One query whatever the reason a row is missing: absent, deleted and another author's
  // article are the same 404 (contract: "GET /posts/{id}").
  const post = await em.findOne(
    PostEntity,
    { id, accountId, deletedAt: null },
    populateBody ? { populate: ['html', 'markdown', 'publishedVersion', 'submittedVersion'] as never } : {},
  );
  if (!post) throw notFound('Article not found');
  return post;
}

/** The working version with its Markdown, for the console editor. */
export async function getPostForEditing(em: EntityManager, accountId: string, id: string) {
  const post = await findOwn(em, accountId, id, true);
  return { post: toAuthorPost(post, { html: post.html }), markdown: post.markdown, publishedVersion: post.publishedVersion, submittedVersion: post.submittedVersion, moderationNote: post.moderationNote };
}

export async function updatePost(ctx: WriteContext, id: string, input: PostWriteInput) {
  const fields = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
  if (fields.length === 0) throw badRequest('body: send at least one field to change');
  validateCoverInput(input);
  if (input.slug !== undefined && !isValidSlug(input.slug)) throw badRequest(slugProblem(input.slug));
  const tagNames = input.tags !== undefined ? normalizeTagNames(input.tags) : undefined;

  const current = await findOwn(ctx.em, ctx.accountId, id, true);
  const title = input.title ?? current.title;
  let html: string | undefined;
  let outcome: RehostOutcome = { stored: {}, failed: [], warnings: [] };
  if (input.markdown !== undefined || input.title !== undefined || input.cover_url) {
    // The inserted H1 comes from the title, so a new title re-renders the body too.
    const prepared = await prepareBody(ctx, input.markdown ?? current.markdown, title, input.cover_url ?? undefined);
    html = prepared.html;
    outcome = prepared.outcome;
  }
  const cover = await resolveCover(ctx, input, outcome);

  try {
    const post = await ctx.em.transactional(async (tx) => {
      const post = await tx.findOne(PostEntity, { id, accountId: ctx.accountId, deletedAt: null }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (!post) throw notFound('Article not found');
      if (input.title !== undefined) post.title = input.title;
      if (input.subtitle !== undefined) post.subtitle = input.subtitle;
      if (input.slug !== undefined) post.slug = input.slug;
      if (input.markdown !== undefined) post.markdown = input.markdown;
      if (html !== undefined) post.html = html;
      if (cover) {
        post.coverAssetId = cover.assetId;
        post.coverUrl = cover.url;
        post.coverWidth = cover.width;
        post.coverHeight = cover.height;
      }
      if (tagNames) {
        const tags = await findOrCreateTags(tx, tagNames);
        post.tags = tags.map((t) => ({ slug: t.slug, name: t.name }));
        await replacePostTags(tx, post.id, tags);
      }
      post.updatedAt = new Date();
      // the contract: a change to a published article waits for the next publish.
      if (post.status !== 'draft') post.hasUnpublishedChanges = true;
      await tx.flush();
      return post;
    });
    return toAuthorPost(post, { rehostFailed: outcome.failed, warnings: outcome.warnings });
  } catch (err) {
    if (isUniqueViolation(err, 'posts_author_slug_live')) throw conflict(`slug: "${input.slug}" is already used by one of your articles`);
    throw err;
  }
}

function snapshot(post: Post): PostVersion {
  return {
    title: post.title,
    subtitle: post.subtitle ?? null,
    slug: post.slug,
    html: post.html,
    tags: post.tags,
    cover: post.coverUrl && post.coverWidth && post.coverHeight ? { url: post.coverUrl, width: post.coverWidth, height: post.coverHeight } : null,
  };
}

/**
 * publish: allowed from draft and published; 400 from pending_moderation.
 * A moderated account's publish waits in pending_moderation while the last approved
 * version, if any, stays public.
 */
export async function publishPost(em: EntityManager, accountId: string, id: string, moderated: boolean) {
  const post = await em.transactional(async (tx) => {
    const post = await tx.findOne(PostEntity, { id, accountId, deletedAt: null }, { lockMode: 4, populate: ['html', 'publishedVersion', 'submittedVersion'] as never });
    if (!post) throw notFound('Article not found');
    if (post.status === 'pending_moderation') {
      throw badRequest('status: the article is waiting for moderation and cannot be published again until it is decided');
    }
    if (!post.html.trim()) throw badRequest('markdown: the working document is empty');
    const version = snapshot(post);
    if (moderated) {
      post.status = 'pending_moderation';
      post.submittedVersion = version;
    } else {
      post.status = 'published';
      post.publishedVersion = version;
      post.submittedVersion = null;
      post.publishedAt = new Date();
    }
    post.moderationNote = null;
    post.hasUnpublishedChanges = false;
    await tx.flush();
    return post;
  });
  return toAuthorPost(post);
}

/** unpublish: allowed from published and pending_moderation; 400 from draft. */
export async function unpublishPost(em: EntityManager, accountId: string, id: string): Promise<void> {
  await em.transactional(async (tx) => {
    const post = await tx.findOne(PostEntity, { id, accountId, deletedAt: null }, { lockMode: 4 });
    if (!post) throw notFound('Article not found');
    if (post.status === 'draft') throw badRequest('status: a draft is not published');
    post.status = 'draft';
    post.publishedVersion = null;
    post.submittedVersion = null;
    post.publishedAt = null;
    post.hasUnpublishedChanges = false;
    await tx.flush();
  });
}

export async function deletePost(em: EntityManager, accountId: string, id: string): Promise<void> {
  const rows = await sql<{ id: string }[]>(
    em,
    `UPDATE posts SET deleted_at = now() WHERE id = ? AND account_id = ? AND deleted_at IS NULL RETURNING id`,
    [id, accountId],
  );
  if (rows.length === 0) throw notFound('Article not found');
}

// ---- Moderation (the moderation rule of docs/api.md) ----

export async function listPending(em: EntityManager) {
  const posts = await em.find(
    PostEntity,
    { status: 'pending_moderation', deletedAt: null },
    { orderBy: { updatedAt: 'asc', id: 'asc' }, populate: ['submittedVersion'] as never },
  );
  return posts;
}

/** Approve: the submitted version becomes public, published_at is the approval time. */
export async function approvePost(em: EntityManager, id: string): Promise<Post> {
  return em.transactional(async (tx) => {
    const post = await tx.findOne(PostEntity, { id, deletedAt: null }, { lockMode: 4, populate: ['submittedVersion', 'publishedVersion'] as never });
    if (!post) throw notFound(`No article ${id}`);
    if (post.status !== 'pending_moderation' || !post.submittedVersion) throw new ApiError(400, `Article ${id} is not waiting for moderation`);
    post.publishedVersion = post.submittedVersion;
    post.submittedVersion = null;
    post.status = 'published';
    post.publishedAt = new Date();
    post.moderationNote = null;
    await tx.flush();
    return post;
  });
}

/** Reject: back to draft, or to published when an earlier version is still public; text kept. */
export async function rejectPost(em: EntityManager, id: string, reason: string | null): Promise<Post> {
  return em.transactional(async (tx) => {
    const post = await tx.findOne(PostEntity, { id, deletedAt: null }, { lockMode: 4, populate: ['submittedVersion', 'publishedVersion'] as never });
    if (!post) throw notFound(`No article ${id}`);
    if (post.status !== 'pending_moderation') throw new ApiError(400, `Article ${id} is not waiting for moderation`);
    post.submittedVersion = null;
    post.moderationNote = reason;
    if (post.publishedVersion) {
      post.status = 'published';
      // The rejected text is still the working version and differs from what readers see.
      post.hasUnpublishedChanges = true;
    } else {
      post.status = 'draft';
      post.hasUnpublishedChanges = false;
    }
    await tx.flush();
    return post;
  });
}
