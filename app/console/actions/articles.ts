'use server';

import { redirect } from 'next/navigation';
import { revalidatePath } from 'next/cache';
import {
  createPost,
  deletePost,
  getPostForEditing,
  publishPost,
  unpublishPost,
  updatePost,
} from '@/server/services/posts';
import type { PostWriteInput } from '@/server/services/post-write.schema';
import { postEtag } from '@/server/services/post-etag';
import { writeContext } from '@/server/runtime';
import { formString, runConsoleAction, type ActionOutcome } from '@/server/console/action';
import { ConsoleProblem } from '@/server/console/problems';
import { UUID_PATTERN } from '@/server/uuid';
import { tagNamesFromField, type EditorFields } from '@/server/console/editor-fields';
import { removedMarkup } from '@/server/console/removed-markup';
import { explainSave, type ExplainedWarning, type FailedImage } from '@/server/console/save-report';

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

export type SaveOutcome = ActionOutcome<{
  updatedAt: string;
  version: string;
  /** `rehost_failed`, each URL with the reason in words. */
  failedImages: FailedImage[];
  /** `warnings`, each with what it means for the author. */
  warnings: ExplainedWarning[];
  /** What the sanitizer took out of the author's raw HTML. */
  removed: string[];
}>;

/**
 * Saves the editor's fields exactly as PATCH /posts/{id} would: the domain applies the same write
 * rules and answers the same 400s. The form carries the version (ETag) the editor loaded, sent
 * as If-Match: when the article changed elsewhere since (another tab, the API, a moderator),
 * nothing is overwritten and the editor says so.
 */
export async function saveArticle(formData: FormData): Promise<SaveOutcome> {
  return runConsoleAction(formData, 'write', async ({ em, session }) => {
    const id = articleId(formData);
    const input: PostWriteInput = {
      title: formString(formData, 'title'),
      subtitle: formString(formData, 'subtitle'),
      slug: formString(formData, 'slug').trim() || undefined, // empty: keep the current slug
      tags: tagNamesFromField(formString(formData, 'tags')),
      markdown: formString(formData, 'markdown'),
    };
    const version = formString(formData, 'version');
    const post = await updatePost(writeContext(em, session.auth), id, input, { ifMatch: version || null });
    revalidatePath(`/console/articles/${id}`);
    const stored = await getPostForEditing(em, session.auth.account.id, id);
    const explained = explainSave(post.rehost_failed ?? [], post.warnings ?? [], post.rehostCauses);
    return {
      updatedAt: post.updated_at,
      version: postEtag(post),
      failedImages: explained.images,
      warnings: explained.warnings,
      removed: removedMarkup(input.markdown ?? '', stored.post.html ?? ''),
    };
  });
}

export type StoredFieldsOutcome = ActionOutcome<{ version: string; fields: EditorFields }>;

/**
 * The article's fields as they are stored now, for the editor to compare with unsaved text after
 * a save was refused because the article changed elsewhere (one read, like GET /posts/{id}).
 */
export async function loadStoredFields(formData: FormData): Promise<StoredFieldsOutcome> {
  return runConsoleAction(formData, 'read', async ({ em, session }) => {
    const { post, etag, markdown } = await getPostForEditing(em, session.auth.account.id, articleId(formData));
    return {
      version: etag,
      fields: {
        title: post.title,
        subtitle: post.subtitle ?? '',
        slug: post.slug,
        tags: post.tags.map((t) => t.name).join(', '),
        markdown,
      },
    };
  });
}

/** On failure the text comes back, so the form (which React resets after an action) keeps it. */
export type NewArticleState = (ActionOutcome & { values?: { title: string; markdown: string } }) | null;

export async function createArticle(_prev: NewArticleState, formData: FormData): Promise<NewArticleState> {
  let createdId = '';
  const outcome = await runConsoleAction(formData, 'write', async ({ em, session }) => {
    const title = formString(formData, 'title');
    const markdown = formString(formData, 'markdown');
    const post = await createPost(writeContext(em, session.auth), { title, markdown });
    createdId = post.id;
    return {};
  });
  if (outcome.ok) redirect(`/console/articles/${createdId}?notice=created`);
  return { ...outcome, values: { title: formString(formData, 'title'), markdown: formString(formData, 'markdown') } };
}

export type StateChangeOutcome = ActionOutcome<{ message: string }> | null;

export async function publishArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'publish', async ({ em, session }) => {
    const id = articleId(formData);
    const post = await publishPost(em, session.auth.account.id, id, session.auth.account.isModerated);
    revalidatePath(`/console/articles/${id}`);
    return {
      message:
        post.status === 'published'
          ? 'Published: readers now see this version.'
          : 'Sent to moderation: readers will see this version once a moderator approves it.',
    };
  });
}

export async function unpublishArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  return runConsoleAction(formData, 'write', async ({ em, session }) => {
    const id = articleId(formData);
    await unpublishPost(em, session.auth.account.id, id);
    revalidatePath(`/console/articles/${id}`);
    return { message: 'Unpublished: the public page is gone; the text is kept as a draft.' };
  });
}

export async function deleteArticle(_prev: StateChangeOutcome, formData: FormData): Promise<StateChangeOutcome> {
  const outcome = await runConsoleAction(formData, 'write', async ({ em, session }) => {
    await deletePost(em, session.auth.account.id, articleId(formData));
    return { message: 'Deleted.' };
  });
  if (outcome.ok) redirect('/console?notice=deleted');
  return outcome;
}
