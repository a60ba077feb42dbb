import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { notFound } from '../errors';

/**
 * The history of an article's working version: one revision per save that changed what a reader
 * would see (create, REST PATCH, a console save, a restore), with the token it came through.
 *
 * The database records them (the trigger of Migration20261126100000_post_revisions), in the
 * statement of the save itself, and prunes in that statement too: an article keeps its newest
 * REVISIONS_KEPT revisions, so the history of one article is bounded by REVISIONS_KEPT times
 * its largest save (Markdown and its HTML; PostgreSQL compresses both). Deleting an article
 * drops its history. The REST contract does not show revisions; the console lists, compares
 * and restores them, and a restore is an ordinary save (If-Match, the same rules and report).
 */

/** How many revisions an article keeps (its newest saves); the migration's trigger prunes beyond. */
export const REVISIONS_KEPT = 50;

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
    `SELECT r.id::text AS id, r.saved_at, t.name AS token_name, r.title, length(r.markdown) AS markdown_length
       FROM posts p
       JOIN post_revisions r ON r.post_id = p.id
       LEFT JOIN api_tokens t ON t.id = r.token_id
      WHERE p.id = ? AND p.account_id = ? AND p.deleted_at IS NULL
      ORDER BY r.saved_at DESC, r.id DESC`,
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
