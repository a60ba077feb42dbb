import { randomUUID } from 'node:crypto';
import { statement, type StatementRunner } from '../../db/statements';
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

/**
 * New tags are inserted and every wanted tag is read back in one statement. A tag another
 * write created in the same moment (its insert committed after this statement began) is not
 * in that statement's snapshot: it is read again by itself, which sees it.
 */
const FIND_OR_CREATE_TAGS = statement(
  'tags_find_or_create',
  `WITH created AS (
     INSERT INTO tags (id, slug, name) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])
     ON CONFLICT (slug) DO NOTHING RETURNING id, slug, name)
   SELECT id, slug, name FROM created
   UNION ALL SELECT id, slug, name FROM tags WHERE slug = ANY($2::text[])`,
);
const FIND_TAGS = statement('tags_find', 'SELECT id, slug, name FROM tags WHERE slug = ANY($1::text[])');

/** Finds or creates the tags (one statement, as a rule); returns them in the requested order. */
export async function findOrCreateTags(
  db: StatementRunner,
  wanted: { slug: string; name: string }[],
): Promise<TagRef[]> {
  if (wanted.length === 0) return [];
  const slugs = wanted.map((t) => t.slug);
  let rows = await db.runWrite<TagRef>(FIND_OR_CREATE_TAGS, [
    wanted.map(() => randomUUID()),
    slugs,
    wanted.map((t) => t.name),
  ]);
  if (rows.length < wanted.length) rows = await db.run<TagRef>(FIND_TAGS, [slugs]);
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  return wanted.map((t) => bySlug.get(t.slug)!);
}
