import { statement, type StatementRunner } from '../../db/statements';
import type { LimitWindow } from '../foundation/errors';
import { limitFor, type Account } from '../model/account';
import type { RateClass } from '../model/rate-classes';

/**
 * The rate window's charge (contract: "Limits"): fixed 60-second windows aligned to the UTC
 * minute, one row per account and rate class in `rate_windows` (UNLOGGED: a commit never waits
 * for a disk flush), counted by one `INSERT … ON CONFLICT DO UPDATE … RETURNING`. The row lock
 * makes it exact under any concurrency: 100 parallel requests against 30 give exactly 30
 * successes. A refused request still counts, which only matters for `RateLimit-Remaining` (it
 * stays 0). rate-limiter-flexible's PostgreSQL store was considered: its windows start at a
 * key's first hit, not at a minute boundary, so it would need custom SQL anyway.
 */

/** The start of the current UTC minute: the one definition of a fixed 60-second window. */
export const CURRENT_MINUTE = 'to_timestamp(floor(extract(epoch FROM clock_timestamp()) / 60) * 60)';

/** What a charge returns: the window's count after it, and epoch seconds as numeric text. */
export interface WindowRow {
  count: number;
  window_start: string;
  now: string;
}

const RETURNING = `count, extract(epoch FROM window_start)::bigint AS window_start, extract(epoch FROM clock_timestamp()) AS now`;

/**
 * Charges the windows of class `$2` of the accounts `select` gives (`account_id`, `units`), one
 * row per account. The rows are inserted in account order, so two statements charging the same
 * accounts lock their rows in the same order and never deadlock.
 */
export const windowCharge = (select: string) => `
  INSERT INTO rate_windows (account_id, class, window_start, count)
  SELECT c.account_id, $2, ${CURRENT_MINUTE}, c.units FROM (${select}) c ORDER BY c.account_id
  ON CONFLICT (account_id, class, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
  RETURNING account_id, ${RETURNING}`;

const CHARGE_WINDOW = statement('charge_window', windowCharge('SELECT $1::uuid AS account_id, 1 AS units'));

/** One unit of the account's `cls` window; the count after it. */
export async function chargeWindowRow(db: StatementRunner, accountId: string, cls: RateClass): Promise<WindowRow> {
  return (await db.run<WindowRow>(CHARGE_WINDOW, [accountId, cls]))[0]!;
}

/** A minute window after a charge: the limit, what is left, when it resets, and whether this request fit. */
export interface WindowState extends LimitWindow {
  allowed: boolean;
}

/**
 * One unit of the account's `cls` minute window, for callers already identified (writes with
 * large bodies, the multipart upload, the console, rehosting).
 */
export async function chargeWindow(db: StatementRunner, account: Account, cls: RateClass): Promise<WindowState> {
  return windowAfter(await chargeWindowRow(db, account.id, cls), limitFor(account, cls));
}

/** The window a charge left, against the account's limit. */
export function windowAfter(row: WindowRow, limit: number): WindowState {
  return windowState(row.count, limit, Number(row.window_start), Number(row.now));
}

export function windowState(count: number, limit: number, windowStart: number, now: number): WindowState {
  const reset = windowStart + 60;
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset,
    retryAfter: Math.max(1, Math.ceil(reset - now)),
  };
}
