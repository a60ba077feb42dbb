import { timingSafeEqual } from 'node:crypto';
import { statement, type StatementRunner } from '../../db/statements';
import { limitFor, windowAfter, windowUpsert, type WindowRow, type WindowState } from './limits';
import type { RateClass } from './rate-classes';
import {
  ACCOUNT_COLUMNS,
  accountFromRow,
  hashSecret,
  looksLikeToken,
  type AccountRow,
  type Authenticated,
} from './tokens';

/**
 * Who is calling, and may they call now: the token lookup and the rate-limit charge of an
 * API request in one prepared statement (one round trip, planned once per connection).
 *
 * The lookup itself only reads. The charge is the fixed-window upsert every rated request
 * makes anyway; its table is UNLOGGED (see the migration that made it so), so the commit
 * never waits for a disk flush. `last_used_at` is recorded at most once a minute per token,
 * after the response path, by a separate statement (`touchToken`), so a read stays a read.
 */

const TOKEN_MATCH = `
  SELECT t.id AS token_id, t.secret_hash,
         (t.last_used_at IS NULL OR t.last_used_at < now() - interval '60 seconds') AS stale_use,
         ${ACCOUNT_COLUMNS}
    FROM api_tokens t JOIN accounts a ON a.id = t.account_id
   WHERE t.secret_hash = $1 AND t.revoked_at IS NULL AND a.deleted_at IS NULL`;

const AUTHENTICATE_AND_CHARGE = statement(
  'authenticate_and_charge',
  `WITH hit AS (${TOKEN_MATCH}),
        charged AS (${windowUpsert('hit.id', 'FROM hit')})
   SELECT hit.*, charged.count, charged.window_start, charged.now FROM hit LEFT JOIN charged ON true`,
);

const AUTHENTICATE = statement('authenticate', TOKEN_MATCH);

const TOUCH_TOKEN = statement(
  'touch_token',
  `UPDATE api_tokens SET last_used_at = now()
    WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
);

type TokenRow = AccountRow & { token_id: string; secret_hash: Buffer; stale_use: boolean };

export interface Access {
  auth: Authenticated;
  window: WindowState;
}

/** The token's account and one unit of its `cls` window; null when the token is not live. */
export async function authenticateAndCharge(
  db: StatementRunner,
  secret: string,
  cls: RateClass,
): Promise<Access | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const rows = await db.run<TokenRow & Partial<WindowRow>>(AUTHENTICATE_AND_CHARGE, [digest, cls]);
  const auth = matched(db, rows[0], digest);
  const row = rows[0];
  if (!auth || !row || row.count == null) return null;
  const window = windowAfter(row as WindowRow, limitFor(auth.account, cls));
  return { auth, window };
}

/** The token's account, without charging anything (requests that must be refused early). */
export async function authenticate(db: StatementRunner, secret: string): Promise<Authenticated | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const rows = await db.run<TokenRow>(AUTHENTICATE, [digest]);
  return matched(db, rows[0], digest);
}

function matched(db: StatementRunner, row: TokenRow | undefined, digest: Buffer): Authenticated | null {
  // The index found the row by digest; compare it in constant time before trusting it.
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), digest)) return null;
  if (row.stale_use) touchToken(db, row.token_id, digest);
  return { tokenId: row.token_id, account: accountFromRow(row) };
}

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
