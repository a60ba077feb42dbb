import { randomUUID } from 'node:crypto';
import type { StatementRunner } from '../../../db/statements';
import {
  admittedReadForEdit,
  foundForEdit,
  insertPost,
  lockedDerivedSlug,
  lockForEdit,
  readForEdit,
  readMemory,
  rememberRehosts,
  slugUsed,
  updatePostRow,
  type EditedRow,
  type NewPost,
  type PostChanges,
  type ReadForEditRow,
  type RehostMemory,
} from '../../data/posts/writes';
import { findOrCreateTags } from '../../data/posts/tags';
import type { PostRow } from '../../data/posts/rows';
import { localMediaPath, type Conversions } from '../../content';
import { conflict, notFound } from '../../foundation/errors';
import { assertIfMatch } from './post-etag';
import type { PostCreate, PostUpdate, PostWrite } from './post-rules';
import { authorPostFromRow } from './post-view';
import { newPublicId } from './public-id';
import { edited } from './publication';
import { substitutions } from '../media/rehost-memory';
import { noRehost, type Rehoster, type RehostOutcome } from '../media/rehost-port';
import { slugFromText } from './slugs';
import { normalizeTagNames } from './tags';
import { assertBodyMediaOwned, coverAfterRehost, planCover, type CoverChoice, type CoverPlan } from './post-media';

/**
 * Creating and editing an author's articles (contract: "POST /posts", "PATCH /posts/{id}", and
 * the decisions in docs/api.md). Knows nothing of HTTP: callers pass the author's id and
 * already-shaped input; every write is one statement or one short transaction, so nothing is
 * half-applied when the database goes away mid-way.
 *
 * A write happens in three steps, so edits never lose, corrupt or repeat work:
 * 1. Everything that can refuse it (field rules, 404, If-Match, a taken slug, a missing cover,
 *    a document empty after conversion) is checked before anything is downloaded: a refused
 *    write costs its write request and nothing else.
 * 2. Only images this write sends and this article never stored are downloaded (and charged);
 *    remembered ones are substituted from the rehost memory (rehost-memory.ts).
 * 3. The write is applied in one statement if the article is still as step 1 read it; if another
 *    write came in between, it is decided again under the row lock (SELECT … FOR UPDATE) on the
 *    row as it is now. The stored html is always the rendering of the stored Markdown and title
 *    with the rehost memory: if another write changed the Markdown or the title meanwhile, the
 *    body is converted again from the locked row (nothing is downloaded there).
 */

export interface WriteContext {
  /** The one way to the data (server/data/). */
  db: StatementRunner;
  /** The process's conversions (Markdown, rewriting image sources), off the event loop. */
  content: Conversions;
  accountId: string;
  rehoster?: Rehoster;
  /** The token the write came through, kept with the revision each save records (revisions.ts). */
  tokenId?: string;
}

/** Conditional requests: the `If-Match` header as sent, checked against the current version. */
export interface WritePreconditions {
  ifMatch?: string | null;
}

/** How an edit is made: its preconditions, and whether it is an autosave of the console editor. */
export interface EditOptions extends WritePreconditions {
  /**
   * The editor visit whose autosave this edit is (the console's `saveArticle`); absent for every
   * other write (REST never passes it), which ends that visit's run of autosaves. A run folds
   * into one history entry (Migration20261128200000_autosave_runs).
   */
  autosaveVisit?: string | null;
  /** For a restore, the time of the version it saves again (server/services/posts/revisions.ts). */
  restoredFrom?: string | null;
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

/**
 * Converts with every remembered image substituted; what is left external is in
 * `externalImages`. The account takes its turn in the conversion queue (shared fairly).
 */
async function render(ctx: WriteContext, markdown: string, title: string, memory: RehostMemory): Promise<Rendered> {
  const out = await ctx.content.render({ markdown, title, rehosted: substitutions(memory) }, ctx.accountId);
  return {
    markdown,
    title,
    html: out.html,
    externalImages: out.externalImages,
    writtenAs: out.writtenAs ?? {},
    selfImages: out.selfImages ?? [],
  };
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

function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint));
}

const slugTaken = (slug: string) => conflict(`slug: "${slug}" is already used by one of your articles`);

/** A requested slug already used by another live article of the author: 409 before any work. */
async function assertSlugFree(db: StatementRunner, accountId: string, slug: string, exceptId?: string) {
  if (await slugUsed(db, accountId, slug, exceptId)) throw slugTaken(slug);
}

/** A new article from a parsed write (post-rules.ts: the REST input or `parsePostWrite`). */
export async function createPost(ctx: WriteContext, input: PostCreate) {
  // 1. Everything that can refuse the write, before anything is downloaded.
  const tagNames = normalizeTagNames(input.tags ?? []);
  if (input.slug !== undefined) await assertSlugFree(ctx.db, ctx.accountId, input.slug);
  const memory: RehostMemory = new Map(); // a new article has stored nothing yet
  const coverPlan = await planCover(ctx.db, ctx.accountId, input, memory);
  const rendered = await render(ctx, input.markdown, input.title, memory);
  await assertBodyMediaOwned(ctx.db, ctx.accountId, rendered.html);
  // 2. Downloads.
  const outcome = await rehostMissing(ctx, rendered.externalImages, coverPlan);
  const html = await ctx.content.rewriteImageSources(rendered.html, storedSubstitutions(outcome), ctx.accountId);
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

/** What an edit decided in step 1: its input, its conversion and what it downloaded. */
interface Edit {
  id: string;
  input: PostWrite;
  ifMatch: string | null | undefined;
  autosaveVisit: string | null;
  restoredFrom: string | null;
  /** The row step 1 read, and the rehost memory with what this write stored. */
  read: EditedRow;
  memory: RehostMemory;
  rendered: Rendered | undefined;
  cover: CoverChoice | undefined;
  tags: PostChanges['tags'];
}

type Found = { row: EditedRow; memory: RehostMemory } | null;

/**
 * PATCH /posts/{id}'s first read: the article and its rehost memory, run in the statement that
 * admits the author (the handler runs it and hands `editFound(rows)` to `updatePost`).
 */
export const editRead = (id: string) => admittedReadForEdit(id);

/** The article as `editRead` found it; null when absent, deleted or another author's. */
export const editFound = (rows: readonly ReadForEditRow[]): Found => foundForEdit(rows[0]);

/**
 * An edit from a parsed write (post-rules.ts: the REST input or `parsePostWrite`); `found` is the
 * article as already read for it (`editRead`), else it is read here.
 */
export async function updatePost(
  ctx: WriteContext,
  id: string,
  input: PostUpdate,
  pre: EditOptions = {},
  found?: Found,
) {
  const { edit, outcome, coverPlan } = await prepareEdit(ctx, id, input, pre, found);
  try {
    const row = (await applyEditAsRead(ctx, edit)) ?? (await applyEditLocked(ctx, edit));
    return authorPostFromRow(row, {
      ...failedAsWritten(outcome, edit.rendered, coverPlan),
      warnings: writeWarnings(outcome, edit.rendered, coverPlan),
    });
  } catch (err) {
    if (isUniqueViolation(err, 'posts_author_slug_live')) throw slugTaken(edit.input.slug ?? '');
    throw err;
  }
}

/**
 * Steps 1 and 2: everything that can refuse the edit is checked before anything is downloaded;
 * then only images of Markdown this write sends (a URL that failed before is tried again) and an
 * external cover_url are downloaded: a title-only or subtitle-only PATCH fetches nothing. What
 * was stored is remembered before the article's row changes: remembered rows are facts about a
 * URL and never change (a remembered URL keeps its first copy), so that is harmless whatever
 * happens to the edit.
 */
async function prepareEdit(
  ctx: WriteContext,
  id: string,
  input: PostUpdate,
  pre: EditOptions,
  given: Found | undefined,
) {
  const tagNames = input.tags !== undefined ? normalizeTagNames(input.tags) : undefined;
  const found = given !== undefined ? given : await readForEdit(ctx.db, ctx.accountId, id);
  if (!found) throw notFound('Article not found');
  const { row: read, memory } = found;
  assertIfMatch(pre.ifMatch, authorPostFromRow(read));
  if (input.slug !== undefined && input.slug !== read.slug) await assertSlugFree(ctx.db, ctx.accountId, input.slug, id);
  const coverPlan = await planCover(ctx.db, ctx.accountId, input, memory);
  // The inserted H1 comes from the title, so a new title converts the body again too (with the
  // memory: nothing is downloaded for it).
  const rendered =
    input.markdown !== undefined || input.title !== undefined
      ? await render(ctx, input.markdown ?? read.markdown, input.title ?? read.title, memory)
      : undefined;
  // Only Markdown this write sends: a title-only edit does not re-judge what is stored.
  if (rendered && input.markdown !== undefined) await assertBodyMediaOwned(ctx.db, ctx.accountId, rendered.html);

  const outcome = await rehostMissing(
    ctx,
    input.markdown !== undefined && rendered ? rendered.externalImages : [],
    coverPlan,
  );
  const tags = tagNames ? await findOrCreateTags(ctx.db, tagNames) : undefined;
  await rememberRehosts(ctx.db, id, outcome.stored);
  const edit: Edit = {
    id,
    input,
    ifMatch: pre.ifMatch,
    autosaveVisit: pre.autosaveVisit ?? null,
    restoredFrom: pre.restoredFrom ?? null,
    read,
    memory: new Map([...Object.entries(outcome.stored), ...memory]),
    rendered,
    cover: coverAfterRehost(coverPlan, outcome),
    tags,
  };
  return { edit, outcome, coverPlan };
}

/** What the edit changes, on the row as `seen`: a change to a published article waits for the next publish. */
function changesOn(ctx: WriteContext, edit: Edit, seen: PostRow, html: string | undefined): PostChanges {
  const state = { status: seen.status, hasUnpublishedChanges: seen.has_unpublished_changes };
  edited(state);
  return {
    title: edit.input.title,
    subtitle: edit.input.subtitle,
    slug: edit.input.slug,
    markdown: edit.input.markdown,
    html,
    tags: edit.tags,
    cover: edit.cover,
    hasUnpublishedChanges: state.hasUnpublishedChanges,
    savedByTokenId: ctx.tokenId ?? null,
    autosaveVisit: edit.autosaveVisit,
    restoredFrom: edit.restoredFrom,
  };
}

/** Step 3 as a rule: one statement, if the article is still as step 1 read it (else null). */
async function applyEditAsRead(ctx: WriteContext, edit: Edit): Promise<PostRow | null> {
  const html = edit.rendered
    ? await ctx.content.rewriteImageSources(edit.rendered.html, substitutions(edit.memory), ctx.accountId)
    : undefined;
  return updatePostRow(ctx.db, ctx.accountId, edit.id, changesOn(ctx, edit, edit.read, html), edit.read);
}

/**
 * Step 3 when another write came in between: decided again under the row lock, on the row as it
 * is now. The body is what the stored Markdown and title give with the memory as it is now:
 * converted again if another write changed the Markdown or the title since step 1, else step 1's
 * conversion with the memory substituted (remembered rows never change, so that equals
 * converting again). Nothing is downloaded here.
 */
async function applyEditLocked(ctx: WriteContext, edit: Edit): Promise<PostRow> {
  return ctx.db.transaction(async (tx) => {
    const locked = await lockForEdit(tx, ctx.accountId, edit.id);
    if (!locked) throw notFound('Article not found');
    assertIfMatch(edit.ifMatch, authorPostFromRow(locked));
    let html: string | undefined;
    if (edit.rendered) {
      const title = edit.input.title ?? locked.title;
      const markdown = edit.input.markdown ?? locked.markdown;
      // Only an edit moves the Markdown, the title or the memory, and every edit moves
      // updated_at: if it did not move, step 1's memory is still the memory.
      const memory = locked.updated_at === edit.read.updated_at ? edit.memory : await readMemory(tx, edit.id);
      html =
        title === edit.rendered.title && markdown === edit.rendered.markdown
          ? await ctx.content.rewriteImageSources(edit.rendered.html, substitutions(memory), ctx.accountId)
          : (await render(ctx, markdown, title, memory)).html;
    }
    return (await updatePostRow(tx, ctx.accountId, edit.id, changesOn(ctx, edit, locked, html), locked))!;
  });
}
