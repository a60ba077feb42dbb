import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MediaEntity, PostEntity, type Media, type Post } from '../../db/entities';
import { sql } from '../../db/sql';
import type { StatementRunner } from '../../db/statements';
import {
  absoluteHttpUrl,
  localMediaPath,
  localMediaUuid,
  pointsAtThisService,
  renderArticle,
  rewriteImageSources,
  storedMediaReferences,
} from '../content';
import { conflict, invalid, notFound } from '../errors';
import { assertIfMatch, postEtag } from './post-etag';
import { checkPostWrite, type PostWriteInput } from './post-rules';
import { authorPostFromRow, toAuthorPost, workingVersion, type AuthorPostJson } from './post-view';
import {
  insertPost,
  lockedDerivedSlug,
  lockForEdit,
  readForEdit,
  readMemory,
  slugUsed,
  updatePostRow,
  type EditedRow,
  type NewPost,
  type PostChanges,
} from './post-write-statements';
import { announcePublicChange, publicPathOf } from './public-changes';
import { newPublicId } from './public-id';
import { edited, publish, unpublish } from './publication';
import { rememberRehosts, substitutions, type RehostMemory } from './rehost-memory';
import { noRehost, type Rehoster, type RehostOutcome, type StoredImage } from './rehost-port';
import { slugFromText } from './slugs';
import { findOrCreateTags, normalizeTagNames } from './tags';

/**
 * Articles of one author (contract: "AuthorPost", "States and transitions", and the decisions in docs/api.md).
 * Knows nothing of HTTP: callers pass the author's id and already-shaped input; every write
 * is one transaction, so nothing is half-applied when the database goes away mid-way.
 *
 * A write happens in three steps, so edits never lose, corrupt or repeat work:
 * 1. Everything that can refuse it (field rules, 404, If-Match, a taken slug, a missing cover,
 *    a document empty after conversion) is checked before anything is downloaded: a refused
 *    write costs its write request and nothing else.
 * 2. Only images this write sends and this article never stored are downloaded (and charged);
 *    remembered ones are substituted from the rehost memory (rehost-memory.ts).
 * 3. Under the row lock (SELECT … FOR UPDATE), the write is applied to the row as it is now.
 *    The stored html is always the rendering of the stored Markdown and title with the rehost
 *    memory: if another write changed the Markdown or the title meanwhile, the body is converted
 *    again from the locked row (nothing is downloaded there).
 */

export interface WriteContext {
  em: EntityManager;
  /** Prepared statements: create and edit run on them (post-write-statements.ts). */
  db: StatementRunner;
  accountId: string;
  rehoster?: Rehoster;
  /** The token the write came through, kept with the revision each save records (revisions.ts). */
  tokenId?: string;
}

/** Conditional requests: the `If-Match` header as sent, checked against the current version. */
export interface WritePreconditions {
  ifMatch?: string | null;
}

const NO_OUTCOME: RehostOutcome = { stored: {}, failed: [], causes: {}, warnings: [] };

interface Rendered {
  markdown: string;
  title: string;
  html: string;
  externalImages: string[];
  writtenAs: Record<string, string[]>;
  /** Images removed because they point at this service outside its stored files. */
  selfImages: string[];
}

/** Converts with every remembered image substituted; what is left external is in `externalImages`. */
/** `accountId` takes this account's turn in the conversion queue (shared fairly between accounts). */
async function render(markdown: string, title: string, memory: RehostMemory, accountId: string): Promise<Rendered> {
  const out = await renderArticle({ markdown, title, rehosted: substitutions(memory) }, accountId);
  return {
    markdown,
    title,
    html: out.html,
    externalImages: out.externalImages,
    writtenAs: out.writtenAs ?? {},
    selfImages: out.selfImages ?? [],
  };
}

interface CoverChoice {
  assetId: string | null;
  url: string | null;
  width: number | null;
  height: number | null;
}

const NO_COVER: CoverChoice = { assetId: null, url: null, width: null, height: null };
const coverOf = (image: StoredImage): CoverChoice => ({
  assetId: image.id,
  url: localMediaPath(image.id),
  width: image.width,
  height: image.height,
});

/** What a write does to the cover: nothing, set it now, or set it once `url` is downloaded. */
/** `keep` leaves the cover as it is; `refused` names a cover_url that is not used (it points at this service). */
type CoverPlan =
  | { kind: 'keep'; refused?: string }
  | { kind: 'set'; cover: CoverChoice }
  | { kind: 'fetch'; url: string; written: string };

/**
 * The one ownership rule for stored files a write shows (cover, body images, videos, GIF
 * islands, link-card media): they must be files of the writing account. Another account's file
 * and one that does not exist are alike, so a uuid seen in someone's article lends nothing.
 */
async function ownMedia(em: EntityManager, accountId: string, ids: string[]) {
  if (ids.length === 0) return new Map<string, Media>();
  const rows = await em.find(MediaEntity, { id: { $in: ids }, accountId });
  return new Map(rows.map((media) => [media.id, media]));
}

async function coverFromAsset(
  em: EntityManager,
  accountId: string,
  assetId: string,
  field: string,
): Promise<CoverChoice> {
  const media = (await ownMedia(em, accountId, [assetId])).get(assetId);
  if (!media || media.kind !== 'image') throw invalid(`${field}: no image ${assetId} among your media`);
  return { assetId: media.id, url: localMediaPath(media.id), width: media.width, height: media.height };
}

/**
 * The cover of this write, checked before any download: a missing `cover_asset_id` or local
 * `/api/media/<uuid>` is a 400 here; a local path is never downloaded, charged or reported.
 * An external `cover_url` this article already stored is taken from the memory.
 */
async function planCover(
  em: EntityManager,
  accountId: string,
  input: PostWriteInput,
  memory: RehostMemory,
): Promise<CoverPlan> {
  if (input.cover_asset_id !== undefined) {
    if (input.cover_asset_id === null) return { kind: 'set', cover: NO_COVER };
    return {
      kind: 'set',
      cover: await coverFromAsset(em, accountId, input.cover_asset_id.toLowerCase(), 'cover_asset_id'),
    };
  }
  if (input.cover_url === undefined) return { kind: 'keep' };
  if (input.cover_url === null) return { kind: 'set', cover: NO_COVER };
  const localId = localMediaUuid(input.cover_url);
  if (localId) return { kind: 'set', cover: await coverFromAsset(em, accountId, localId, 'cover_url') };
  const url = absoluteHttpUrl(input.cover_url) ?? input.cover_url;
  // Never downloaded: this service's own pages and beacons are not images to store.
  if (pointsAtThisService(url)) return { kind: 'keep', refused: input.cover_url };
  const known = memory.get(url);
  if (known) return { kind: 'set', cover: coverOf(known) };
  return { kind: 'fetch', url, written: input.cover_url };
}

/** A body showing a stored file the account does not own is refused like such a cover: 400, naming them. */
async function assertBodyMediaOwned(em: EntityManager, accountId: string, html: string): Promise<void> {
  const referenced = storedMediaReferences(html);
  const owned = await ownMedia(em, accountId, referenced);
  const foreign = referenced.filter((id) => !owned.has(id));
  if (foreign.length > 0) {
    throw invalid(`markdown: not among your media: ${foreign.map(localMediaPath).join(', ')}`);
  }
}

/** Downloads what this write needs and the article does not have yet (the contract's rehost rules). */
async function rehostMissing(ctx: WriteContext, bodyUrls: string[], cover: CoverPlan): Promise<RehostOutcome> {
  const urls = cover.kind === 'fetch' ? [...bodyUrls, cover.url] : bodyUrls;
  if (urls.length === 0) return NO_OUTCOME;
  return (ctx.rehoster ?? noRehost).rehost(ctx.accountId, [...new Set(urls)]);
}

/**
 * The write's warnings: why rehost stopped early, and each address removed or refused for
 * pointing at this service outside its stored files (an image of a page or a reader beacon
 * would count every reader of this article for another one).
 */
function writeWarnings(outcome: RehostOutcome, rendered: Rendered | undefined, cover: CoverPlan): string[] {
  const warnings = [...outcome.warnings];
  for (const url of rendered?.selfImages ?? [])
    warnings.push(`markdown: image "${url}" removed: it points at this service outside /api/media/`);
  if (cover.kind === 'keep' && cover.refused !== undefined)
    warnings.push(`cover_url: "${cover.refused}" not used: it points at this service outside /api/media/`);
  return warnings;
}

/** `rehost_failed` names each URL as the author wrote it, not the canonical form fetched. */
function failedAsWritten(
  outcome: RehostOutcome,
  rendered: Rendered | undefined,
  cover: CoverPlan,
): { rehostFailed: string[]; rehostCauses: Record<string, string> } {
  const out: string[] = [];
  const causes: Record<string, string> = {};
  for (const url of outcome.failed) {
    const spellings = [...(rendered?.writtenAs[url] ?? [])];
    if (cover.kind === 'fetch' && cover.url === url) spellings.push(cover.written);
    for (const spelling of spellings.length > 0 ? spellings : [url]) {
      if (!out.includes(spelling)) out.push(spelling);
      causes[spelling] ??= outcome.causes[url] ?? 'could not store the image';
    }
  }
  return { rehostFailed: out, rehostCauses: causes };
}

/** The contract's rehost rule 3: a cover URL that cannot be stored simply creates no cover. */
function coverAfterRehost(plan: CoverPlan, outcome: RehostOutcome): CoverChoice | undefined {
  if (plan.kind === 'set') return plan.cover;
  if (plan.kind === 'fetch') {
    const image = outcome.stored[plan.url];
    return image ? coverOf(image) : undefined;
  }
  return undefined;
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint));
}

const slugTaken = (slug: string) => conflict(`slug: "${slug}" is already used by one of your articles`);

/** A requested slug already used by another live article of the author: 409 before any work. */
async function assertSlugFree(db: StatementRunner, accountId: string, slug: string, exceptId?: string) {
  if (await slugUsed(db, accountId, slug, exceptId)) throw slugTaken(slug);
}

export async function createPost(
  ctx: WriteContext,
  rawInput: Required<Pick<PostWriteInput, 'title' | 'markdown'>> & PostWriteInput,
) {
  // 1. Everything that can refuse the write, before anything is downloaded.
  const input = checkPostWrite(rawInput, 'create');
  const tagNames = normalizeTagNames(input.tags ?? []);
  if (input.slug !== undefined) await assertSlugFree(ctx.db, ctx.accountId, input.slug);
  const memory: RehostMemory = new Map(); // a new article has stored nothing yet
  const coverPlan = await planCover(ctx.em, ctx.accountId, input, memory);
  const rendered = await render(input.markdown, input.title, memory, ctx.accountId);
  await assertBodyMediaOwned(ctx.em, ctx.accountId, rendered.html);
  // 2. Downloads.
  const outcome = await rehostMissing(ctx, rendered.externalImages, coverPlan);
  const html = await rewriteImageSources(rendered.html, storedSubstitutions(outcome), ctx.accountId);
  const cover = coverAfterRehost(coverPlan, outcome);

  const post = (slug: string): NewPost => ({
    id: randomUUID(),
    accountId: ctx.accountId,
    publicId: newPublicId(),
    slug,
    title: input.title,
    subtitle: input.subtitle ?? null,
    markdown: input.markdown,
    html,
    tags: tagNames,
    cover,
    stored: outcome.stored,
    now: new Date(),
    savedByTokenId: ctx.tokenId ?? null,
  });

  // 3. As a rule one statement: the article under the slug it asks for, or its title's own slug.
  const base = input.slug ?? slugFromText(input.title);
  let row = await insertPost(ctx.db, post(base));
  // Not inserted: the slug is taken, or a tag was being created by another write at that moment.
  for (let attempt = 1; !row; attempt++) {
    if (input.slug !== undefined) {
      if (attempt > 3 || (await slugUsed(ctx.db, ctx.accountId, input.slug))) throw slugTaken(input.slug);
      row = await insertPost(ctx.db, post(input.slug));
    } else {
      if (attempt > 3) throw conflict('slug: could not derive a free slug from the title; send one');
      // A derived slug (-2, -3…) is picked under a per-author, per-base-slug advisory lock, so
      // concurrent creates with one title take their suffixes in turn instead of colliding.
      row = await ctx.db.transaction(async (tx) =>
        insertPost(tx, post(await lockedDerivedSlug(tx, ctx.accountId, base))),
      );
    }
  }
  return authorPostFromRow(row, {
    ...failedAsWritten(outcome, rendered, coverPlan),
    warnings: writeWarnings(outcome, rendered, coverPlan),
  });
}

function storedSubstitutions(outcome: RehostOutcome): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [url, image] of Object.entries(outcome.stored)) out[url] = localMediaPath(image.id);
  return out;
}

const BODY_COLUMNS = ['html', 'markdown', 'publishedVersion', 'submittedVersion'] as never;

async function findOwn(em: EntityManager, accountId: string, id: string, populateBody = false): Promise<Post> {
  // One query whatever the reason a row is missing: absent, deleted and another author's
  // article are the same 404 (contract: "GET /posts/{id}").
  const post = await em.findOne(
    PostEntity,
    { id, accountId, deletedAt: null },
    populateBody ? { populate: BODY_COLUMNS } : {},
  );
  if (!post) throw notFound('Article not found');
  return post;
}

/**
 * The row under a write lock until the transaction ends, with its current values. A plain
 * FOR UPDATE waits for a concurrent writer: SKIP LOCKED (LockMode.PESSIMISTIC_PARTIAL_WRITE,
 * the "4" this used to pass) would report an existing article as absent while another write
 * holds it.
 */
export async function lockOwn(
  tx: EntityManager,
  id: string,
  accountId: string | null,
  populate?: never,
): Promise<Post | null> {
  const where = accountId === null ? { id, deletedAt: null } : { id, accountId, deletedAt: null };
  return tx.findOne(PostEntity, where, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    refresh: true,
    ...(populate ? { populate } : {}),
  });
}

/** The working version with its Markdown, for the console editor; `etag` is what a save sends back. */
export async function getPostForEditing(em: EntityManager, accountId: string, id: string) {
  const post = await findOwn(em, accountId, id, true);
  const view = toAuthorPost(post, { html: post.html });
  return {
    post: view,
    etag: postEtag(view),
    markdown: post.markdown,
    publishedVersion: post.publishedVersion,
    submittedVersion: post.submittedVersion,
    moderationNote: post.moderationNote,
  };
}

export async function updatePost(
  ctx: WriteContext,
  id: string,
  rawInput: PostWriteInput,
  pre: WritePreconditions = {},
) {
  // 1. Everything that can refuse the write, before anything is downloaded.
  const input = checkPostWrite(rawInput, 'update');
  const tagNames = input.tags !== undefined ? normalizeTagNames(input.tags) : undefined;
  const found = await readForEdit(ctx.db, ctx.accountId, id);
  if (!found) throw notFound('Article not found');
  const { row: current, memory } = found;
  assertIfMatch(pre.ifMatch, authorPostFromRow(current));
  if (input.slug !== undefined && input.slug !== current.slug)
    await assertSlugFree(ctx.db, ctx.accountId, input.slug, id);
  const coverPlan = await planCover(ctx.em, ctx.accountId, input, memory);
  // The inserted H1 comes from the title, so a new title converts the body again too (with the
  // memory: nothing is downloaded for it).
  const rendered =
    input.markdown !== undefined || input.title !== undefined
      ? await render(input.markdown ?? current.markdown, input.title ?? current.title, memory, ctx.accountId)
      : undefined;
  // Only Markdown this write sends: a title-only edit does not re-judge what is stored.
  if (rendered && input.markdown !== undefined) await assertBodyMediaOwned(ctx.em, ctx.accountId, rendered.html);

  // 2. Downloads: only images of Markdown this write sends (a URL that failed before is tried
  // again) and an external cover_url; a title-only or subtitle-only PATCH fetches nothing.
  const outcome = await rehostMissing(
    ctx,
    input.markdown !== undefined && rendered ? rendered.externalImages : [],
    coverPlan,
  );
  const cover = coverAfterRehost(coverPlan, outcome);

  // 3. The write, decided on the version read in step 1. The rehost memory is step 1's plus what
  // this write stored (a remembered URL keeps its first copy): remembered rows are facts about
  // a URL and never change, so storing them before the article's row is harmless whatever
  // happens to the edit.
  const tags = tagNames ? await findOrCreateTags(ctx.db, tagNames) : undefined;
  await rememberRehosts(ctx.db, id, outcome.stored);
  const memoryNow = new Map([...Object.entries(outcome.stored), ...memory]);
  const changes = (seen: EditedRow, html: string | undefined): PostChanges => {
    // A change to a published article waits for the next publish.
    const state = { status: seen.status, hasUnpublishedChanges: seen.has_unpublished_changes };
    edited(state);
    return {
      title: input.title,
      subtitle: input.subtitle,
      slug: input.slug,
      markdown: input.markdown,
      html,
      tags,
      cover,
      hasUnpublishedChanges: state.hasUnpublishedChanges,
      savedByTokenId: ctx.tokenId ?? null,
    };
  };
  try {
    // As a rule the article is still as step 1 read it: one statement applies the edit if so.
    const html = rendered
      ? await rewriteImageSources(rendered.html, substitutions(memoryNow), ctx.accountId)
      : undefined;
    const row =
      (await updatePostRow(ctx.db, ctx.accountId, id, changes(current, html), current)) ??
      // Another write came in between: decided again under the row lock, on the row as it is now.
      (await ctx.db.transaction(async (tx) => {
        const locked = await lockForEdit(tx, ctx.accountId, id);
        if (!locked) throw notFound('Article not found');
        assertIfMatch(pre.ifMatch, authorPostFromRow(locked));
        let html: string | undefined;
        if (rendered) {
          const title = input.title ?? locked.title;
          const markdown = input.markdown ?? locked.markdown;
          // Only an edit moves the Markdown, the title or the memory, and every edit moves
          // updated_at: if it did not move, step 1's memory is still the memory.
          const memoryLocked = locked.updated_at === current.updated_at ? memoryNow : await readMemory(tx, id);
          // Converted from what is stored now: another write may have changed the Markdown or
          // the title since step 1. Remembered rows never change, so substituting the memory
          // read under the lock into the step-1 conversion equals converting with it.
          html =
            title === rendered.title && markdown === rendered.markdown
              ? await rewriteImageSources(rendered.html, substitutions(memoryLocked), ctx.accountId)
              : (await render(markdown, title, memoryLocked, ctx.accountId)).html;
        }
        return (await updatePostRow(tx, ctx.accountId, id, changes(locked, html), locked))!;
      }));
    return authorPostFromRow(row, {
      ...failedAsWritten(outcome, rendered, coverPlan),
      warnings: writeWarnings(outcome, rendered, coverPlan),
    });
  } catch (err) {
    if (isUniqueViolation(err, 'posts_author_slug_live')) throw slugTaken(input.slug ?? '');
    throw err;
  }
}

/** Publish the working version; the rules (moderation, no-op republish, refusals) are publication.ts's. */
export async function publishPost(
  em: EntityManager,
  accountId: string,
  id: string,
  moderated: boolean,
  pre: WritePreconditions = {},
) {
  const { post, before, changed } = await em.transactional(async (tx) => {
    const post = await lockOwn(tx, id, accountId, ['html', 'publishedVersion', 'submittedVersion'] as never);
    if (!post) throw notFound('Article not found');
    assertIfMatch(pre.ifMatch, toAuthorPost(post));
    const before = publicPathOf(post.publishedVersion?.slug, post.publicId);
    const version = workingVersion(post);
    const changed = publish(post, { version, empty: !post.html.trim() }, { moderated, now: new Date() });
    await tx.flush();
    return { post, before, changed };
  });
  // A new snapshot (not one sent to moderation) changes the page; a new slug moves it, so the
  // old path (now a redirect) and the new one (perhaps a cached redirect or 404) both change.
  if (changed && post.status === 'published')
    announcePublicChange([before, publicPathOf(post.publishedVersion?.slug, post.publicId)]);
  return toAuthorPost(post);
}

/** Unpublish: back to draft (publication.ts); 400 from draft. */
export async function unpublishPost(
  em: EntityManager,
  accountId: string,
  id: string,
  pre: WritePreconditions = {},
): Promise<AuthorPostJson> {
  const { post, before } = await em.transactional(async (tx) => {
    const post = await lockOwn(tx, id, accountId, ['publishedVersion'] as never);
    if (!post) throw notFound('Article not found');
    assertIfMatch(pre.ifMatch, toAuthorPost(post));
    const before = publicPathOf(post.publishedVersion?.slug, post.publicId);
    unpublish(post);
    await tx.flush();
    return { post, before };
  });
  announcePublicChange([before]);
  return toAuthorPost(post);
}

export async function deletePost(
  em: EntityManager,
  accountId: string,
  id: string,
  pre: WritePreconditions = {},
): Promise<void> {
  if (pre.ifMatch !== undefined && pre.ifMatch !== null) {
    // Conditional: the version is compared and the row deleted under one lock.
    const before = await em.transactional(async (tx) => {
      const post = await lockOwn(tx, id, accountId, ['publishedVersion'] as never);
      if (!post) throw notFound('Article not found');
      assertIfMatch(pre.ifMatch, toAuthorPost(post));
      await sql(tx, `UPDATE posts SET deleted_at = now() WHERE id = ?`, [post.id]);
      return publicPathOf(post.publishedVersion?.slug, post.publicId);
    });
    announcePublicChange([before]);
    return;
  }
  const rows = await sql<{ public_id: string; slug: string | null }[]>(
    em,
    `UPDATE posts SET deleted_at = now() WHERE id = ? AND account_id = ? AND deleted_at IS NULL
     RETURNING public_id, published_version->>'slug' AS slug`,
    [id, accountId],
  );
  if (rows.length === 0) throw notFound('Article not found');
  announcePublicChange([publicPathOf(rows[0]!.slug, rows[0]!.public_id)]);
}
