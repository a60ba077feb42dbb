import { timingSafeEqual } from 'node:crypto';
import type { StatementRunner } from '../../db/statements';
import { matchToken, matchTokenAndCharge, touchTokenRow, type TokenMatch } from '../data/access';
import { matchTokenChargeAndRead } from '../data/admission-batches';
import type { AdmittedRead } from '../data/admitted-reads';
import { limitFor, windowAfter, type WindowState } from './limits';
import type { RateClass } from '../model/rate-classes';
import { hashSecret, looksLikeToken, type Authenticated } from './tokens';

/**
 * Who is calling, and may they call now: the token lookup and the rate-limit charge of an API
 * request in one prepared statement (one round trip; server/data/access.ts).
 *
 * The lookup itself only reads. The charge is the fixed-window upsert every rated request makes
 * anyway; its table is UNLOGGED (see the migration that made it so), so the commit never waits
 * for a disk flush. `last_used_at` is recorded at most once a minute per token, after the
 * response path, by a separate statement (`touchToken`), so a read stays a read.
 */

export interface Access {
  auth: Authenticated;
  window: WindowState;
}

/**
 * How a read procedure admits its caller (api/trpc.ts `authorReadFirstProcedure`): token, one unit
 * of the window and `read` for the account in one statement; throws 401 or 429 as `admit` does.
 */
export type { AdmittedRead };
export type Admitter = <Row>(read: AdmittedRead<Row>) => Promise<{ auth: Authenticated; rows: Row[] }>;

/** The token's account and one unit of its `cls` window; null when the token is not live. */
export async function authenticateAndCharge(
  db: StatementRunner,
  secret: string,
  cls: RateClass,
): Promise<Access | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const found = await matchTokenAndCharge(db, digest, cls);
  const auth = found && trusted(db, found.match, digest);
  if (!auth) return null;
  return { auth, window: windowAfter(found.window, limitFor(auth.account, cls)) };
}

/**
 * `authenticateAndCharge` and a read for the account, in the same statement (data/admitted-reads.ts
 * `admittedStatement`): `rows` is what the read found, empty when the window refused it.
 */
export async function authenticateChargeAndRead<Row>(
  db: StatementRunner,
  secret: string,
  cls: RateClass,
  read: AdmittedRead<Row>,
): Promise<(Access & { rows: Row[] }) | null> {
  // The statement checks the limit of the class it was built for: it must be the route's.
  if (read.statement.cls !== cls) throw new Error(`${read.statement.name} is a ${read.statement.cls} read, not ${cls}`);
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const found = await matchTokenChargeAndRead(db, digest, read);
  const auth = found && trusted(db, found.match, digest);
  if (!auth) return null;
  return { auth, window: windowAfter(found.window, limitFor(auth.account, cls)), rows: found.rows };
}

/** The token's account, without charging anything (requests that must be refused early, console sign-in). */
export async function authenticate(db: StatementRunner, secret: string): Promise<Authenticated | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const found = await matchToken(db, digest);
  return found && trusted(db, found, digest);
}

function trusted(db: StatementRunner, match: TokenMatch, digest: Buffer): Authenticated | null {
  // The index found the row by digest; compare it in constant time before trusting it.
  if (!timingSafeEqual(Buffer.from(match.secretHash), digest)) return null;
  if (match.staleUse) touchToken(db, match.tokenId, digest);
  return { tokenId: match.tokenId, account: match.account };
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
  touchTokenRow(db, tokenId).catch(() => touched.delete(key));
}
