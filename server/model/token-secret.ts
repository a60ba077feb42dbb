import { hash } from 'node:crypto';

/**
 * An API token's secret (contract: "Authentication"): `dp_live_` + 43 base62 characters (256
 * bits of entropy). Only its SHA-256 is stored: with that much entropy a slow hash adds nothing,
 * and an index on the digest keeps authentication to one query. The row found is still compared
 * in constant time before it is trusted (admission/token-match.ts).
 */
export const TOKEN_PREFIX = 'dp_live_';

/** SHA-256 of the secret (UTF-8), one-shot: every authenticated request hashes its token. */
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer') as unknown as Buffer;
}

/** Shape check before touching the database: the prefix and the base62 body. */
export function looksLikeToken(secret: string): boolean {
  return /^dp_live_[0-9A-Za-z]{43}$/.test(secret);
}
