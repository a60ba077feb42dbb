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

/**
 * One unit of the window of class `$2`, taken only while the count before it is below `$3`, in
 * one statement: the row lock of the upsert makes the ceiling exact under any concurrency, as
 * for CHARGE_WINDOW. `charged` is null when nothing was taken (nothing is counted then); the
 * window's start and the clock come back either way, from one reading of the clock. A window
 * not yet started is inserted only when the ceiling lets one unit in (`$3 > 0`).
 */
const CHARGE_WINDOW_BELOW = statement(
  'charge_window_below',
  `WITH minute AS (SELECT ${CURRENT_MINUTE} AS start, clock_timestamp() AS now),
   charged AS (
     INSERT INTO rate_windows (account_id, class, window_start, count)
     SELECT $1::uuid, $2, minute.start, 1 FROM minute WHERE $3::integer > 0
     ON CONFLICT (account_id, class, window_start) DO UPDATE SET count = rate_windows.count + 1
       WHERE rate_windows.count < $3::integer
     RETURNING count)
   SELECT (SELECT count FROM charged) AS charged, extract(epoch FROM minute.start)::bigint AS window_start,
          extract(epoch FROM minute.now) AS now
     FROM minute`,
);

/** A charge under a ceiling: whether it was taken, and when the window resets. */
export interface ChargeBelow {
  /** One unit was taken (the count before it was below the ceiling). */
  charged: boolean;
  /** The window's count after the unit, when it was taken. */
  count: number | null;
  /** Epoch seconds at which the window resets, and seconds from now until then (at least 1). */
  reset: number;
  retryAfter: number;
}

/**
 * One unit of the account's `cls` minute window, only while fewer than `ceiling` units of it are
 * used: a caller that must leave the rest of the window to others (the console's autosave,
 * server/console/console-charges.ts) takes nothing once the window reaches its ceiling.
 */
export async function chargeWindowBelow(
  db: StatementRunner,
  account: Pick<Account, 'id'>,
  cls: RateClass,
  ceiling: number,
): Promise<ChargeBelow> {
  const [row] = await db.run<{ charged: number | null; window_start: string; now: string }>(CHARGE_WINDOW_BELOW, [
    account.id,
    cls,
    Math.max(0, Math.floor(ceiling)),
  ]);
  const charged = row!.charged === null ? null : Number(row!.charged);
  return { charged: charged !== null, count: charged, ...windowReset(Number(row!.window_start), Number(row!.now)) };
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
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), ...windowReset(windowStart, now) };
}

/** When the window that started at `windowStart` resets (epoch seconds), and how long that is from `now`. */
function windowReset(windowStart: number, now: number): { reset: number; retryAfter: number } {
  const reset = windowStart + 60;
  return { reset, retryAfter: Math.max(1, Math.ceil(reset - now)) };
}
