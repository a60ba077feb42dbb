import { invalid } from '../../foundation/errors';
import { slugFromText } from './slugs';

/**
 * Tags are shared by name: POST /posts finds existing tags and creates new ones by name.
 * A tag is identified by the slug of its name, so "Node.js" and "node js" are one tag and the
 * first spelling seen becomes its display name.
 */
const TAG_NAME_MAX = 50;
export const TAGS_MAX = 20;

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
