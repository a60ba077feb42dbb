'use server';

import { redirect } from 'next/navigation';
// `refresh()`, not `revalidatePath` of the article's path: the console's pages are dynamic, so a
// path's tag would purge nothing, and Next keeps every tag it was given for the process's life
// (one per article id, any id an author sends: memory without a bound). eslint.config.mjs
// refuses a revalidatePath whose path is not a fixed string.
import { refresh } from 'next/cache';
import { createPost, updatePost } from '@/server/services/posts/post-writes';
import { deletePost, publishPost, unpublishPost } from '@/server/services/posts/post-publishing';
import { getPostForEditing } from '@/server/services/posts/post-reads';
import { parsePostWrite } from '@/server/services/posts/post-rules';
import { postEtag } from '@/server/services/posts/post-etag';
import { publishingOf, writeContextOf } from '@/server/runtime/request-contexts';
import { formString, runConsoleAction, type ActionOutcome } from '@/server/console/action';
import { AUTOSAVE } from '@/server/console/console-charges';
import { ConsoleProblem } from '@/server/console/problems';
import { UUID_PATTERN } from '@/server/foundation/uuid';
import { normalizeLineEndings, tagNamesFromField, type EditorFields } from '@/server/console/editor-fields';
import { removedMarkup, type RemovedMarkup } from '@/server/console/removed-markup';
import { explainSave, type ExplainedWarning, type FailedImage } from '@/server/console/save-report';
import { restoreRevision as restoreSavedRevision } from '@/server/services/posts/revisions';
import { cancelScheduledPublish, schedulePublish } from '@/server/services/posts/scheduled-publishing';
import { formatDateTime } from '../components/format';

/**
 * Article mutations from the console: the same service calls, under the same limit classes,
 * as the REST procedures (PATCH/POST/unpublish/DELETE are write, publish is publish; rehost
 * inside a write spends media like it does for the API).
 */

function articleId(formData: FormData): string {
  const id = formString(formData, 'id');
  if (!UUID_PATTERN.test(id)) throw new ConsoleProblem('That article does not exist.');
  return id;
}

/** What a write did to the text that the author should know: the same after a save and a create. */
export interface WriteReport {
  /** `rehost_failed`, each URL with the reason in words. */
  failedImages: FailedImage[];
  /** `warnings`, each with what it means for the author. */
  warnings: ExplainedWarning[];
  /** What the sanitizer took out of the author's text, each with its line. */
  removed: RemovedMarkup[];
}

export type SaveOutcome = ActionOutcome<WriteReport & { updatedAt: string; version: string }>;

function writeReport(
  post: { rehost_failed?: string[]; warnings?: string[]; rehostCauses?: Record<string, string> },
  markdown: string | undefined,
  storedHtml: string,
): WriteReport {
  const explained = explainSave(post.rehost_failed ?? [], post.warnings ?? [], post.rehostCauses);
  return {
    failedImages: explained.images,
    warnings: explained.warnings,
    removed: markdown === undefined ? [] : removedMarkup(markdown, storedHtml),
  };
}

/** A field of the form, line endings as articles store them; absent when the editor did not send it. */
function sentField(formData: FormData, name: string): string | undefined {
  return formData.has(name) ? normalizeLineEndings(formString(formData, name)) : undefined;
}

/**
 * The editor visit of an autosave: the form's `autosave` field, a UUID the editor draws once per
 * visit; undefined for a manual save (no such field). Anything else in the field is refused.
 */
function autosaveVisit(formData: FormData): string | undefined {
  if (!formData.has('autosave')) return undefined;
  const visit = formString(formData, 'autosave');
  if (!UUID_PATTERN.test(visit))
    throw new ConsoleProblem('This autosave could not be recognised (its editor visit is not a UUID). Save by hand.');
  return visit;
}

/**
 * Saves the editor's fields exactly as PATCH /posts/{id} would: the domain applies the same write
 * rules and answers the same 400s. The editor sends only the fields the maintainer changed, so a
 * field changed elsewhere and not touched here is never reverted. The form carries the version
 * (ETag) the text is based on, sent as If-Match: when the article changed elsewhere since
 * (another tab, the API, a moderator), nothing is overwritten and the editor says so.
 *
 * An autosave is the same save with a field `autosave` holding the editor visit's UUID. It is
 * charged to the `write` window only while autosaves leave the API at least half of the minute
 * (server/console/console-charges.ts; past that nothing is charged or saved, and the outcome's
 * `autosaveWaits` says in how many seconds it can try again), and a run of autosaves of one visit
 * leaves one entry in the history (`updatePost`'s `autosaveVisit`). A form whose `autosave` field
 * is not a UUID is charged as an autosave and refused.
 */
export async function saveArticle(formData: FormData): Promise<SaveOutcome> {
  return runConsoleAction(formData, formData.has('autosave') ? AUTOSAVE : 'write', async ({ parts, session }) => {
    const id = articleId(formData);
    const visit = autosaveVisit(formData);
    const slug = sentField(formData, 'slug');
    const tags = sentField(formData, 'tags');
    // The cover: one of the account's images by id, '' to remove it; absent: unchanged.
    const cover = formData.has('cover_asset_id') ? formString(formData, 'cover_asset_id').trim() || null : undefined;
    const input = parsePostWrite(
      {
        title: sentField(formData, 'title'),
        subtitle: sentField(formData, 'subtitle'),
        slug: slug?.trim() || undefined, // empty: keep the current slug
        tags: tags === undefined ? undefined : tagNamesFromField(tags),
        markdown: sentField(formData, 'markdown'),
        cover_asset_id: cover,
      },
      'update',
    );
    const version = formString(formData, 'version');
    const post = await updatePost(writeContextOf(parts, session.auth), id, input, {
      ifMatch: version || null,
      autosaveVisit: visit,
    });
    refresh();
    const stored = await getPostForEditing(parts.db, session.auth.account.id, id);
    return {
      updatedAt: post.updated_at,
      version: postEtag(post),
      ...writeReport(post, input.markdown, stored.post.html ?? ''),
    };
  });
}

export type RestoreOutcome = ActionOutcome<
  WriteReport & { updatedAt: string; version: string; fields: EditorFields; restoredFrom: string }
>;

/**
 * Restores a revision into the working version as an ordinary save (server/services/posts/revisions.ts
 * `restoreRevision`: the same call as PATCH /posts/{id} with the revision's fields, If-Match the
 * version the editor shows, the same rules, limits and report), labelled in the history as
 * restored from that revision's time. The version it replaces stays in the history, so a restore
 * can itself be undone.
 */
export async function restoreRevision(formData: FormData): Promise<RestoreOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const id = articleId(formData);
    const accountId = session.auth.account.id;
    const version = formString(formData, 'version');
    const { post, revision, input } = await restoreSavedRevision(
      writeContextOf(parts, session.auth),
      id,
      formString(formData, 'revision'),
      { ifMatch: version || null },
    );
    refresh();
    const stored = await getPostForEditing(parts.db, accountId, id);
    return {
      updatedAt: post.updated_at,
      version: postEtag(post),
      fields: editorFieldsOf(stored),
      restoredFrom: revision.savedAt,
      ...writeReport(post, input.markdown, stored.post.html ?? ''),
    };
  });
}

function editorFieldsOf({ post, markdown }: Awaited<ReturnType<typeof getPostForEditing>>): EditorFields {
  return {
    title: post.title,
    subtitle: post.subtitle ?? '',
    slug: post.slug,
    tags: post.tags.map((t) => t.name).join(', '),
    markdown,
  };
}

export type StoredFieldsOutcome = ActionOutcome<{ version: string; fields: EditorFields }>;

/**
 * The article's fields as they are stored now, for the editor to compare with unsaved text after
 * a save was refused because the article changed elsewhere (one read, like GET /posts/{id}).
 */
export async function loadStoredFields(formData: FormData): Promise<StoredFieldsOutcome> {
  return runConsoleAction(formData, 'read', async ({ parts, session }) => {
    const stored = await getPostForEditing(parts.db, session.auth.account.id, articleId(formData));
    return { version: stored.etag, fields: editorFieldsOf(stored) };
  });
}

/**
 * On failure the text comes back, so the form (which React resets after an action) keeps it. On
 * success: the new article's id and what the write reported, which the form hands to the editor
 * it opens next (the same report a save shows).
 */
export type NewArticleState =
  (ActionOutcome<{ id: string; report: WriteReport }> & { values?: { title: string; markdown: string } }) | null;

export async function createArticle(_prev: NewArticleState, formData: FormData): Promise<NewArticleState> {
  const title = formString(formData, 'title');
  const markdown = normalizeLineEndings(formString(formData, 'markdown'));
  const outcome = await runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const post = await createPost(writeContextOf(parts, session.auth), parsePostWrite({ title, markdown }, 'create'));
    const stored = await getPostForEditing(parts.db, session.auth.account.id, post.id);
    return { id: post.id, report: writeReport(post, markdown, stored.post.html ?? '') };
  });
  return outcome.ok ? outcome : { ...outcome, values: { title, markdown } };
}

export type StateChangeOutcome = ActionOutcome<{ message: string }> | null;

export async function publishArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'publish', async ({ parts, session }) => {
    const id = articleId(formData);
    const post = await publishPost(publishingOf(parts), session.auth.account.id, id, session.auth.account.isModerated);
    refresh();
    return {
      message:
        post.status === 'published'
          ? 'Published: readers now see this version.'
          : 'Sent to moderation: readers will see this version once a moderator approves it.',
    };
  });
}

/**
 * The time a schedule form sends: `publish_at` (an ISO instant) when the page's script wrote it,
 * else the `datetime-local` field itself, which the form labels as UTC (as every time in the
 * console is shown), so the form works before its script has loaded.
 */
function publishTimeOf(formData: FormData): Date {
  const instant = formString(formData, 'publish_at');
  if (instant) return new Date(instant);
  const local = formString(formData, 'local');
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local))
    throw new ConsoleProblem('Choose the date and time to publish at.');
  return new Date(`${local}${local.length === 16 ? ':00' : ''}Z`);
}

/**
 * Schedules the working version's publication (server/services/posts/scheduled-publishing.ts): at that
 * time any instance publishes it as Publish would, moderation and publish limit included.
 * Setting or cancelling a schedule spends one write, like a save.
 */
export async function scheduleArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const id = articleId(formData);
    const schedule = await schedulePublish(parts.db, session.auth.account.id, id, publishTimeOf(formData));
    refresh();
    return {
      message: `Scheduled: the saved working version is published at ${formatDateTime(schedule.publishAt)}, as Publish would then.`,
    };
  });
}

export async function cancelSchedule(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const id = articleId(formData);
    const had = await cancelScheduledPublish(parts.db, session.auth.account.id, id);
    refresh();
    return {
      message: had ? 'Schedule cancelled: nothing is published unless you publish it.' : 'There was no schedule.',
    };
  });
}

export async function unpublishArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'write', async ({ parts, session }) => {
    const id = articleId(formData);
    await unpublishPost(publishingOf(parts), session.auth.account.id, id);
    refresh();
    return { message: 'Unpublished: the public page is gone; the text is kept as a draft.' };
  });
}

export async function deleteArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  const outcome = await runConsoleAction(formData, 'write', async ({ parts, session }) => {
    await deletePost(publishingOf(parts), session.auth.account.id, articleId(formData));
    return { message: 'Deleted.' };
  });
  if (outcome.ok) redirect('/console?notice=deleted');
  return outcome;
}
