import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries `Bearer <expected>`, for the process's own tokens
 * (METRICS_TOKEN, READER_EVENTS_TOKEN). Compared as digests, so neither the content nor the
 * length of the token leaks through timing.
 */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]!), digest(expected));
}
