import { randomInt } from 'node:crypto';

/**
 * `public_id`: 10 characters of lowercase letters and digits (~51 bits), random and unrelated
 * to the UUID. No hyphen, so `/<slug>-<public_id>` splits unambiguously at the last hyphen.
 */
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
export const PUBLIC_ID_PATTERN = /^[0-9a-z]{10}$/;

export function newPublicId(): string {
  let out = '';
  for (let i = 0; i < 10; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Splits a canonical path segment `<slug>-<public_id>`; null when it cannot be one. */
export function parseCanonicalSegment(segment: string): { slug: string; publicId: string } | null {
  const at = segment.lastIndexOf('-');
  if (at <= 0) return null;
  const slug = segment.slice(0, at);
  const publicId = segment.slice(at + 1);
  return PUBLIC_ID_PATTERN.test(publicId) ? { slug, publicId } : null;
}
