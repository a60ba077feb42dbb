import { isoTimestamp, statement, type StatementRunner } from '../../../db/statements';
import type { Revision, RevisionSummary } from '../../model/revision';
import { LIVE_OWN } from './rows';

/**
 * The history of saves (`post_revisions`, kept and pruned by the trigger of
 * Migration20261126100000_post_revisions; server/services/posts/revisions.ts says what it is for).
 * The article's own row is its newest revision, `current`. `restored_from` (Migration20261128100000_
 * restored_from) is the time of the version a restore saved again, on the row and on its copy.
 * `autosaved` (Migration20261128200000_autosave_runs): the version is an autosave's, the newest
 * of its run (the run's earlier autosaves folded into it); on the row, `autosave_visit` is set.
 */
export const CURRENT_REVISION = 'current';

const LIST_REVISIONS = statement(
  'revisions_list',
  `SELECT v.id, v.saved_at, t.name AS token_name, v.title, v.markdown_length, v.restored_from, v.autosaved
     FROM posts p
     CROSS JOIN LATERAL (
       SELECT '${CURRENT_REVISION}' AS id, p.updated_at AS saved_at, p.saved_by_token_id AS token_id, p.title,
              length(p.markdown) AS markdown_length, p.restored_from, p.autosave_visit IS NOT NULL AS autosaved,
              0 AS rank, 0::bigint AS seq
       UNION ALL
       SELECT r.id::text, r.saved_at, r.token_id, r.title, length(r.markdown), r.restored_from, r.autosaved, 1, r.id
         FROM post_revisions r WHERE r.post_id = p.id) v
     LEFT JOIN api_tokens t ON t.id = v.token_id
    WHERE p.id = $1 AND p.account_id = $2 AND p.deleted_at IS NULL
    ORDER BY v.rank, v.saved_at DESC, v.seq DESC`,
);

/** The article's revisions, newest first (the current one first of all); none for an article not the author's. */
export async function listRevisionRows(
  db: StatementRunner,
  accountId: string,
  postId: string,
): Promise<RevisionSummary[]> {
  const rows = await db.run<{
    id: string;
    saved_at: string;
    token_name: string | null;
    title: string;
    markdown_length: number;
    restored_from: string | null;
    autosaved: boolean;
  }>(LIST_REVISIONS, [postId, accountId]);
  return rows.map((r) => ({
    id: r.id,
    savedAt: isoTimestamp(r.saved_at),
    tokenName: r.token_name,
    title: r.title,
    markdownLength: Number(r.markdown_length),
    restoredFrom: r.restored_from === null ? null : isoTimestamp(r.restored_from),
    autosaved: r.autosaved,
  }));
}

const READ_REVISION = statement(
  'revision_read',
  `SELECT r.id::text AS id, r.saved_at, r.title, r.subtitle, r.slug, r.tags, r.markdown, r.html
     FROM post_revisions r JOIN posts p ON p.id = r.post_id
    WHERE r.id = $3 AND r.post_id = $1 AND p.account_id = $2 AND p.deleted_at IS NULL`,
);

const READ_CURRENT = statement(
  'revision_current',
  `SELECT '${CURRENT_REVISION}' AS id, updated_at AS saved_at, title, subtitle, slug, tags, markdown, html
     FROM posts WHERE ${LIVE_OWN}`,
);

/** One revision of the author's article (`current` or a revision's number), or null. */
export async function readRevisionRow(
  db: StatementRunner,
  accountId: string,
  postId: string,
  revisionId: string,
): Promise<Revision | null> {
  const [row] =
    revisionId === CURRENT_REVISION
      ? await db.run<Omit<Revision, 'savedAt'> & { saved_at: string }>(READ_CURRENT, [postId, accountId])
      : await db.run<Omit<Revision, 'savedAt'> & { saved_at: string }>(READ_REVISION, [postId, accountId, revisionId]);
  if (!row) return null;
  const { saved_at, ...rest } = row;
  return { ...rest, savedAt: isoTimestamp(saved_at) };
}
