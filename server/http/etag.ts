import { createHash } from 'node:crypto';

/** A strong entity tag from the bytes (or text) that make a representation. */
export function strongEtag(...parts: (string | Buffer)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * RFC 9110 If-None-Match for GET/HEAD: `*` or any listed tag equal to ours. The comparison
 * is weak there (a `W/` prefix is ignored), which is what caches send back.
 */
export function matchesIfNoneMatch(header: string | string[] | undefined | null, etag: string): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
