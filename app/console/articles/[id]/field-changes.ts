import { normalizeLineEndings, type EditorFields } from '@/server/console/editor-fields';

/**
 * How the editor tells its own changes from someone else's: every comparison is on text with
 * the line endings a browser form sends (\r\n) turned into the \n articles are stored with, so an
 * article is never "changed" by its line endings alone.
 */

const FIELD_NAMES: (keyof EditorFields)[] = ['title', 'subtitle', 'slug', 'tags', 'markdown'];

export function normalizedFields(fields: EditorFields): EditorFields {
  const out = { ...fields };
  for (const k of FIELD_NAMES) out[k] = normalizeLineEndings(fields[k]);
  return out;
}

/** The fields the maintainer changed, compared with the version the text is based on. */
export function changedFields(mine: EditorFields, base: EditorFields): (keyof EditorFields)[] {
  // Identical text is the common case (every render asks): no copy of a 2 MB field for it.
  return FIELD_NAMES.filter(
    (k) => mine[k] !== base[k] && normalizeLineEndings(mine[k]) !== normalizeLineEndings(base[k]),
  );
}

/**
 * "Keep my text" after a conflict: the maintainer's changed fields win; a field they did not
 * touch takes the current stored value, so a change made elsewhere to another field is kept.
 */
export function keepMine(mine: EditorFields, base: EditorFields, theirs: EditorFields): EditorFields {
  const changed = new Set(changedFields(mine, base));
  const out = { ...theirs };
  for (const k of FIELD_NAMES) if (changed.has(k)) out[k] = mine[k];
  return out;
}
