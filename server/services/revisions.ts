import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { notFound } from '../errors';

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
 * lists, compares and restores them; a restore is an ordinary save (If-Match, same rules and report).
 */

/** How many revisions an article has at most (its newest saves, the current one included). */
export const REVISIONS_KEPT = 50;

/** The id of the newest revision: the article's row as it is. */
const CURRENT = 'current';

export interface RevisionSummary {
  /** Opaque, per revision (a decimal number). */
  id: string;
  savedAt: string;
  /** The name of the token the save came through; null for saves recorded before names were kept. */
  tokenName: string | null;
  title: string;
  /** Characters of Markdown, so a list can show a save's size at a glance. */
  markdownLength: number;
}

export interface Revision {
  id: string;
  savedAt: string;
  title: string;
  subtitle: string | null;
  slug: string;
  tags: { slug: string; name: string }[];
  markdown: string;
  html: string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The author's live article's revisions, newest first; not_found for another author's or a deleted one. */
export async function listRevisions(em: EntityManager, accountId: string, postId: string): Promise<RevisionSummary[]> {
  const rows = await sql<
    { id: string; saved_at: Date; token_name: string | null; title: string; markdown_length: number; own: boolean }[]
  >(
    em,
    `SELECT v.id, v.saved_at, t.name AS token_name, v.title, v.markdown_length
       FROM posts p
       CROSS JOIN LATERAL (
         SELECT '${CURRENT}' AS id, p.updated_at AS saved_at, p.saved_by_token_id AS token_id, p.title,
                length(p.markdown) AS markdown_length, 0 AS rank, 0::bigint AS seq
         UNION ALL
         SELECT r.id::text, r.saved_at, r.token_id, r.title, length(r.markdown), 1, r.id
           FROM post_revisions r WHERE r.post_id = p.id) v
       LEFT JOIN api_tokens t ON t.id = v.token_id
      WHERE p.id = ? AND p.account_id = ? AND p.deleted_at IS NULL
      ORDER BY v.rank, v.saved_at DESC, v.seq DESC`,
    [postId, accountId],
  );
  return rows.map((r) => ({
    id: r.id,
    savedAt: iso(r.saved_at),
    tokenName: r.token_name,
    title: r.title,
    markdownLength: Number(r.markdown_length),
  }));
}

/** One revision of the author's live article, whole; not_found when it is not one of theirs (or pruned). */
export async function readRevision(
  em: EntityManager,
  accountId: string,
  postId: string,
  revisionId: string,
): Promise<Revision> {
  if (revisionId === CURRENT) return currentRevision(em, accountId, postId);
  if (!/^[0-9]{1,18}$/.test(revisionId)) throw notFound('Revision not found');
  const [row] = await sql<
    {
      id: string;
      saved_at: Date;
      title: string;
      subtitle: string | null;
      slug: string;
      tags: Revision['tags'];
      markdown: string;
      html: string;
    }[]
  >(
    em,
    `SELECT r.id::text AS id, r.saved_at, r.title, r.subtitle, r.slug, r.tags, r.markdown, r.html
       FROM post_revisions r JOIN posts p ON p.id = r.post_id
      WHERE r.id = ? AND r.post_id = ? AND p.account_id = ? AND p.deleted_at IS NULL`,
    [revisionId, postId, accountId],
  );
  if (!row) throw notFound('Revision not found');
  return { ...row, savedAt: iso(row.saved_at) };
}

async function currentRevision(em: EntityManager, accountId: string, postId: string): Promise<Revision> {
  const [row] = await sql<(Omit<Revision, 'savedAt'> & { saved_at: Date })[]>(
    em,
    `SELECT '${CURRENT}' AS id, updated_at AS saved_at, title, subtitle, slug, tags, markdown, html
       FROM posts WHERE id = ? AND account_id = ? AND deleted_at IS NULL`,
    [postId, accountId],
  );
  if (!row) throw notFound('Revision not found');
  const { saved_at, ...rest } = row;
  return { ...rest, savedAt: iso(saved_at) };
}
