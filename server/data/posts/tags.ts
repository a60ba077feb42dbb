import { randomUUID } from 'node:crypto';
import { statement, type StatementRunner } from '../../../db/statements';

/**
 * Tags as articles name them: the `tags` table, one row per slug shared by every article using
 * the name. Written by a create or an edit (writes.ts places an article's tags in `post_tags`).
 */

/** A tag as the `tags` table has it: one row per slug, shared by every article using the name. */
export interface TagRow {
  id: string;
  slug: string;
  name: string;
}

/**
 * Creates the tags that do not exist yet and returns every wanted tag's row: tags are found or
 * made by slug. One statement as a rule; a tag another write is creating at that moment (its row
 * not yet committed when this statement began) is read again once that write is done.
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

export async function findOrCreateTags(
  db: StatementRunner,
  wanted: { slug: string; name: string }[],
): Promise<TagRow[]> {
  if (wanted.length === 0) return [];
  const slugs = wanted.map((t) => t.slug);
  let rows = await db.runWrite<TagRow>(FIND_OR_CREATE_TAGS, [
    wanted.map(() => randomUUID()),
    slugs,
    wanted.map((t) => t.name),
  ]);
  if (rows.length < wanted.length) rows = await db.run<TagRow>(FIND_TAGS, [slugs]);
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  return wanted.map((t) => bySlug.get(t.slug)!);
}
