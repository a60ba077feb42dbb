import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { invalid } from '../errors';
import { slugFromText } from './slugs';

/**
 * Tags are shared by name: POST /posts finds existing tags and creates new ones by name.
 * A tag is identified by the slug of its name, so "Node.js" and "node js" are one tag and the
 * first spelling seen becomes its display name.
 */
const TAG_NAME_MAX = 50;
export const TAGS_MAX = 20;

export interface TagRef {
  id: string;
  slug: string;
  name: string;
}

export function normalizeTagNames(names: string[]): { slug: string; name: string }[] {
  if (names.length > TAGS_MAX) throw invalid(`tags: at most ${TAGS_MAX} tags`);
  const seen = new Map<string, string>();
  for (const raw of names) {
    const name = raw.trim().replace(/\s+/g, ' ');
    if (!name) throw invalid('tags: a tag name must not be empty');
    if (name.length > TAG_NAME_MAX) throw invalid(`tags: a tag name is at most ${TAG_NAME_MAX} characters`);
    const slug = slugFromText(name, '', 60);
    if (!slug) throw invalid(`tags: "${name}" has no letters or digits`);
    if (!seen.has(slug)) seen.set(slug, name);
  }
  return [...seen].map(([slug, name]) => ({ slug, name }));
}

/** Finds or creates the tags in one statement pair; returns them in the requested order. */
export async function findOrCreateTags(em: EntityManager, wanted: { slug: string; name: string }[]): Promise<TagRef[]> {
  if (wanted.length === 0) return [];
  const values = wanted.map(() => '(?, ?, ?)').join(', ');
  await sql(
    em,
    `INSERT INTO tags (id, slug, name) VALUES ${values} ON CONFLICT (slug) DO NOTHING`,
    wanted.flatMap((t) => [randomUUID(), t.slug, t.name]),
  );
  const rows = await sql<TagRef[]>(
    em,
    `SELECT id, slug, name FROM tags WHERE slug IN (${wanted.map(() => '?').join(', ')})`,
    wanted.map((t) => t.slug),
  );
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  return wanted.map((t) => bySlug.get(t.slug)!);
}

export async function replacePostTags(em: EntityManager, postId: string, tags: TagRef[]): Promise<void> {
  await sql(em, 'DELETE FROM post_tags WHERE post_id = ?', [postId]);
  if (tags.length === 0) return;
  await sql(
    em,
    `INSERT INTO post_tags (post_id, tag_id, position) VALUES ${tags.map(() => '(?, ?, ?)').join(', ')}`,
    tags.flatMap((t, i) => [postId, t.id, i]),
  );
}
