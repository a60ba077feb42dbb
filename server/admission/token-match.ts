import { timingSafeEqual } from 'node:crypto';
import { statement, type StatementRunner } from '../../db/statements';
import { ACCOUNT_COLUMNS, accountOf, type AccountRow, type Authenticated } from '../model/account';
import { hashSecret, looksLikeToken } from '../model/token-secret';
import type { RateClass } from '../model/rate-classes';
import { windowCharge, type WindowRow } from './window-charge';

/**
 * The token match: the live token of a live account found by its secret's digest, then compared
 * again in constant time before it is trusted, and its use recorded at most once a minute.
 */

/** The columns of a match: the token's and its account's (`FROM api_tokens t JOIN accounts a`). */
const MATCH_COLUMNS = `t.id AS token_id, t.secret_hash,
  (t.last_used_at IS NULL OR t.last_used_at < now() - interval '60 seconds') AS stale_use, ${ACCOUNT_COLUMNS}`;

/** The live tokens whose digest satisfies `digest` (an SQL condition on `t.secret_hash`), with their accounts. */
export const tokenMatch = (digest: string) => `
  SELECT ${MATCH_COLUMNS}
    FROM api_tokens t JOIN accounts a ON a.id = t.account_id
   WHERE ${digest} AND t.revoked_at IS NULL AND a.deleted_at IS NULL`;

/** A match as it comes back. */
export type MatchRow = AccountRow & { token_id: string; secret_hash: Buffer; stale_use: boolean };

/** The names of a match's columns. */
export const MATCH_COLUMN_NAMES = ['token_id', 'secret_hash', 'stale_use'] as const;

const AUTHENTICATE = statement('authenticate', tokenMatch('t.secret_hash = $1'));

/**
 * The token lookup and one unit of the account's window of class `$2`, in one statement: what
 * every rated request that is not an admitted read does first.
 */
const AUTHENTICATE_AND_CHARGE = statement(
  'authenticate_and_charge',
  `WITH hit AS (${tokenMatch('t.secret_hash = $1')}),
        charged AS (${windowCharge('SELECT id AS account_id, 1 AS units FROM hit')})
   SELECT hit.*, charged.count, charged.window_start, charged.now FROM hit JOIN charged ON true`,
);

/** The caller of this secret, without charging anything (console sign-in, identify-first writes). */
export async function authenticate(db: StatementRunner, secret: string): Promise<Authenticated | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const [row] = await db.run<MatchRow>(AUTHENTICATE, [digest]);
  return row ? trusted(db, row, digest) : null;
}

/** The caller of this secret and one unit of its `cls` window; null when the token is not live. */
export async function authenticateAndCharge(
  db: StatementRunner,
  secret: string,
  cls: RateClass,
): Promise<{ auth: Authenticated; window: WindowRow } | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const [row] = await db.run<MatchRow & WindowRow>(AUTHENTICATE_AND_CHARGE, [digest, cls]);
  const auth = row && trusted(db, row, digest);
  return auth ? { auth, window: { count: row.count, window_start: row.window_start, now: row.now } } : null;
}

/**
 * A match the index found by `digest`, compared with it in constant time before it is trusted;
 * null when they differ.
 */
export function trusted(db: StatementRunner, row: MatchRow, digest: Buffer): Authenticated | null {
  if (!timingSafeEqual(Buffer.from(row.secret_hash), digest)) return null;
  if (row.stale_use) touchToken(db, row.token_id, digest);
  return { tokenId: row.token_id, account: accountOf(row) };
}

const TOUCH_TOKEN = statement(
  'touch_token',
  `UPDATE api_tokens SET last_used_at = now()
    WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
);

/**
 * Records the token's use at most once a minute, without delaying the response: concurrent
 * requests of one secret see the same stale `last_used_at`, so the first one claims the
 * minute here and the others skip. Keyed by the secret's digest, so a reissued secret (same
 * token id, `last_used_at` cleared) records its first use at once. A failed write is retried
 * on a later request.
 */
const touched = new Map<string, number>();

function touchToken(db: StatementRunner, tokenId: string, digest: Buffer): void {
  const key = digest.toString('base64');
  const now = Date.now();
  const last = touched.get(key);
  if (last !== undefined && now - last < 60_000) return;
  touched.set(key, now);
  if (touched.size > 10_000) {
    for (const [k, at] of touched) if (now - at >= 60_000) touched.delete(k);
  }
  db.run(TOUCH_TOKEN, [tokenId]).catch(() => touched.delete(key));
}
