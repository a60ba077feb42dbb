import { normalizeLineEndings, type ArticleFields, type EditorFields } from '@/server/console/editor-fields';

/**
 * How the editor tells its own changes from someone else's: every comparison is on text with
 * the line endings a browser form sends (\r\n) turned into the \n articles are stored with, so an
 * article is never "changed" by its line endings alone. The cover (an image's id) is compared as
 * it is, when both sides have one to compare (a draft from session storage and a version loaded
 * for comparison carry only the texts).
 */

const FIELD_NAMES: (keyof EditorFields)[] = ['title', 'subtitle', 'slug', 'tags', 'markdown'];
const COVER: keyof ArticleFields = 'cover_asset_id';

type Fields = EditorFields & Partial<Pick<ArticleFields, 'cover_asset_id'>>;

export function normalizedFields<F extends EditorFields>(fields: F): F {
  const out = { ...fields };
  for (const k of FIELD_NAMES) out[k] = normalizeLineEndings(fields[k]);
  return out;
}

/** Whether the cover differs: only when both sides say which cover they have. */
function coverChanged(mine: Fields, base: Fields): boolean {
  return mine.cover_asset_id !== undefined && base.cover_asset_id !== undefined && mine[COVER] !== base[COVER];
}

/** The fields the maintainer changed, compared with the version the text is based on. */
export function changedFields(mine: Fields, base: Fields): (keyof ArticleFields)[] {
  // Identical text is the common case (every render asks): no copy of a 2 MB field for it.
  const changed: (keyof ArticleFields)[] = FIELD_NAMES.filter(
    (k) => mine[k] !== base[k] && normalizeLineEndings(mine[k]) !== normalizeLineEndings(base[k]),
  );
  if (coverChanged(mine, base)) changed.push(COVER);
  return changed;
}

/**
 * "Keep my text" after a conflict: the maintainer's changed fields win; a field they did not
 * touch takes the current stored value, so a change made elsewhere to another field is kept.
 * A cover changed here is kept too (the current version's own cover is only known when given).
 */
export function keepMine<F extends Fields>(mine: F, base: Fields, theirs: F): F {
  const changed = new Set(changedFields(mine, base));
  const out = { ...theirs };
  for (const k of FIELD_NAMES) if (changed.has(k)) out[k] = mine[k];
  if (changed.has(COVER)) (out as Fields).cover_asset_id = mine.cover_asset_id;
  return out;
}
