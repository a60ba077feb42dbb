import type { StatementRunner } from '../../../db/statements';
import { CURRENT_REVISION, listRevisionRows, readRevisionRow } from '../../data/posts/revisions';
import { notFound } from '../../foundation/errors';
import type { Revision, RevisionSummary } from '../../model/revision';
import { parsePostWrite, type PostUpdate } from './post-rules';
import type { AuthorPostJson } from './post-view';
import { updatePost, type WriteContext, type WritePreconditions } from './post-writes';

/**
 * The history of an article's working version: one revision per save that changed what a reader
 * would see (create, REST PATCH, a console save, a restore), with the token it came through.
 *
 * The article's row is its newest revision (`CURRENT`); the database keeps the versions saves
 * replaced (the trigger of Migration20261126100000_post_revisions), in the statement of the save
 * itself, and prunes in that statement too: an article has at most REVISIONS_KEPT revisions, its
 * row included, so its history is bounded by REVISIONS_KEPT - 1 copies of its largest save
 * (Markdown and its HTML; PostgreSQL compresses both), and an article never edited has none.
 * Deleting an article drops its history. The REST contract does not show revisions; the console
 * lists, compares and restores them; a restore is an ordinary save (If-Match, same rules and report)
 * whose revision says which version it restored (`restoredFrom`, until a later save replaces it).
 *
 * The console editor's autosaves are saves too, but a run of them (one editor visit, until a
 * manual save, a publication move, an API write or AUTOSAVE_RUN_MINUTES from its first autosave)
 * leaves one revision, its newest autosave's, marked `autosaved`
 * (Migration20261128200000_autosave_runs; `updatePost`'s `autosaveVisit`).
 */

/** How many revisions an article has at most (its newest saves, the current one included). */
export const REVISIONS_KEPT = 50;

/** The article's revisions, newest first; none for an article that is not the author's. */
export function listRevisions(db: StatementRunner, accountId: string, postId: string): Promise<RevisionSummary[]> {
  return listRevisionRows(db, accountId, postId);
}

/** One revision (`current`, or a revision's number) of the author's article. */
export async function readRevision(
  db: StatementRunner,
  accountId: string,
  postId: string,
  revisionId: string,
): Promise<Revision> {
  if (revisionId !== CURRENT_REVISION && !/^[0-9]{1,18}$/.test(revisionId)) throw notFound('Revision not found');
  const row = await readRevisionRow(db, accountId, postId, revisionId);
  if (!row) throw notFound('Revision not found');
  return row;
}

/**
 * Restores a revision into the working version as an ordinary save: `updatePost` with the
 * revision's title, subtitle, slug, tags and Markdown, as PATCH /posts/{id} would take them (the
 * same rules, If-Match, limits and report). The version it replaces stays in the history, so a
 * restore can itself be undone.
 *
 * The save carries the time of the version it restored (`restoredFrom`), written by the save's
 * own statement: the history labels it "Restored from" that time, and no other save can be
 * labelled as one. The label is not part of the contract: the AuthorPost and the ETag are the
 * same as for any save.
 */
export async function restoreRevision(
  ctx: WriteContext,
  postId: string,
  revisionId: string,
  pre: WritePreconditions = {},
): Promise<{ post: AuthorPostJson; revision: Revision; input: PostUpdate }> {
  const revision = await readRevision(ctx.db, ctx.accountId, postId, revisionId);
  const input = parsePostWrite(
    {
      title: revision.title,
      subtitle: revision.subtitle,
      slug: revision.slug,
      tags: revision.tags.map((t) => t.name),
      markdown: revision.markdown,
    },
    'update',
  );
  const post = await updatePost(ctx, postId, input, { ...pre, restoredFrom: revision.savedAt });
  return { post, revision, input };
}
