import { hash } from 'node:crypto';

/**
 * Entity tags (RFC 9110): making a strong tag and comparing the ones a client sends. Plain
 * functions of strings, used by the article rules (If-Match under the row lock) and by the
 * HTTP layer (public pages, the OpenAPI document) alike.
 */

/**
 * A strong entity tag from the bytes (or text, as UTF-8) that make a representation: SHA-256
 * of their concatenation. Hashed in one call (no Hash object per tag: an article read makes one
 * on every answer); the same digest as updating a hash part by part.
 */
export function strongEtag(...parts: (string | Buffer)[]): string {
  // Each text part encoded on its own, as `update` does (joining texts first could pair surrogates).
  const bytes =
    parts.length === 1
      ? parts[0]!
      : Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
  return `"${hash('sha256', bytes, 'base64url').slice(0, 27)}"`;
}

/** Entity tags of an `If-Match` / `If-None-Match` value (RFC 9110 §8.8.3); `*` is returned alone. */
export function parseEntityTags(header: string): { any: boolean; tags: { weak: boolean; opaque: string }[] } {
  if (header.trim() === '*') return { any: true, tags: [] };
  const tags: { weak: boolean; opaque: string }[] = [];
  for (const match of header.matchAll(/(W\/)?("[^"]*")/g)) tags.push({ weak: Boolean(match[1]), opaque: match[2]! });
  return { any: false, tags };
}

/** `If-Match` uses strong comparison: a weak tag never matches (RFC 9110 §13.1.1). */
export function ifMatchHolds(header: string | null | undefined, current: string): boolean {
  if (header === null || header === undefined) return true;
  const parsed = parseEntityTags(header);
  return parsed.any || parsed.tags.some((t) => !t.weak && t.opaque === current);
}

/** `If-None-Match` uses weak comparison (RFC 9110 §13.1.2): true when the client's copy is current. */
export function ifNoneMatchMatches(header: string | string[] | null | undefined, current: string): boolean {
  if (header === null || header === undefined) return false;
  const parsed = parseEntityTags(Array.isArray(header) ? header.join(',') : header);
  return parsed.any || parsed.tags.some((t) => t.opaque === current);
}
