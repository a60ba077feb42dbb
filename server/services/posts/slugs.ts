import { slugify } from 'transliteration';

/**
 * Slugs (the contract leaves their syntax to us; docs/api.md "Slugs"): lowercase ASCII letters and
 * digits in groups joined by single hyphens, 1–100 characters. Titles in any script are
 * transliterated first ("Привет, мир" → "privet-mir"); a title with nothing to transliterate
 * (only emoji, say) falls back to "post".
 */
export const SLUG_MAX = 100;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug);
}

export function slugFromText(text: string, fallback = 'post', max = 80): string {
  const raw = slugify(text, { lowercase: true, separator: '-', trim: true })
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = raw.slice(0, max).replace(/-+$/, '');
  return cut || fallback;
}
