import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { statement, type StatementRunner } from '../../db/statements';
import type { LimitWindow } from '../errors';
import { LIMITS, RATE_CLASSES, type LimitName, type RateClass } from './rate-classes';
import type { Authenticated } from './tokens';

/**
 * Per-account limits (contract: "Limits"): fixed 60-second windows aligned to the minute, and a
 * daily media byte quota that resets at midnight UTC.
 *
 * Counters live in PostgreSQL so every app instance sees the same numbers. Each consume is
 * one `INSERT … ON CONFLICT DO UPDATE … RETURNING`: the row lock makes it exact under any
 * concurrency (100 parallel requests against 30 give exactly 30 successes). A rejected
 * request still counts, which only matters for `RateLimit-Remaining` (it stays 0).
 * rate-limiter-flexible's PostgreSQL store was considered: its windows start at a key's
 * first hit (not at a fixed minute boundary) and it cannot express the UTC-day byte quota,
 * so both would need custom SQL anyway.
 */
/** An account's limits as `GET /me` and the CLI show them, in the contract's order. */
export function limitsOf(account: Authenticated['account']): Record<LimitName, number> {
  return Object.fromEntries(LIMITS.map((l) => [l.name, account[l.field]])) as Record<LimitName, number>;
}

export function limitFor(account: Authenticated['account'], cls: RateClass): number {
  return account[RATE_CLASSES[cls].field];
}

/** A minute window after a charge: the limit, what is left, when it resets, and whether this request fit. */
export interface WindowState extends LimitWindow {
  allowed: boolean;
}

/**
 * The window of the current UTC minute, counted atomically (exact under any concurrency): the
 * one statement that charges a minute window. `accountId` is an SQL expression, so
 * services/access.ts can charge the window in the same statement that finds the token.
 */
export const windowUpsert = (accountId: string, from = '') => `
  INSERT INTO rate_windows (account_id, class, window_start, count)
  SELECT ${accountId}, $2, to_timestamp(floor(extract(epoch FROM clock_timestamp()) / 60) * 60), 1 ${from}
  ON CONFLICT (account_id, class, window_start) DO UPDATE SET count = rate_windows.count + 1
  RETURNING count, extract(epoch FROM window_start)::bigint AS window_start, extract(epoch FROM clock_timestamp()) AS now`;

/** What `windowUpsert` returns. */
export type WindowRow = { count: number; window_start: string; now: string };

const CHARGE_WINDOW = statement('charge_window', windowUpsert('$1::uuid'));

/**
 * One unit of the account's `cls` minute window, for every caller (REST procedures, the
 * multipart upload, the console, rehosting): through the prepared-statement pool, or through
 * `em` (inside its transaction if any).
 */
export async function chargeWindow(
  db: StatementRunner | EntityManager,
  accountId: string,
  cls: RateClass,
  limit: number,
): Promise<WindowState> {
  const params = [accountId, cls];
  const rows =
    'run' in db
      ? await db.run<WindowRow>(CHARGE_WINDOW, params)
      : await sql<WindowRow[]>(db, CHARGE_WINDOW.text.replace(/\$\d/g, '?'), params);
  return windowAfter(rows[0]!, limit);
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

const MEDIA_BYTES_TODAY_SQL = `SELECT bytes FROM media_usage WHERE account_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`;
const MEDIA_BYTES_TODAY = statement('media_bytes_today', MEDIA_BYTES_TODAY_SQL);

/** Bytes used by the account since the start of the current UTC day (inside `em`'s transaction if any). */
export async function dailyMediaBytesUsed(em: EntityManager, accountId: string): Promise<number> {
  const rows = await sql<{ bytes: string }[]>(em, MEDIA_BYTES_TODAY_SQL.replace('$1', '?'), [accountId]);
  return rows[0] ? Number(rows[0].bytes) : 0;
}

/** The same figure through a prepared statement, for GET /me. */
export async function readDailyMediaBytesUsed(db: StatementRunner, accountId: string): Promise<number> {
  const rows = await db.run<{ bytes: string }>(MEDIA_BYTES_TODAY, [accountId]);
  return rows[0] ? Number(rows[0].bytes) : 0;
}

/**
 * Adds `bytes` to today's usage if the quota allows it, atomically. Returns false (and
 * records nothing) when the quota would be exceeded.
 */
export async function tryAddDailyMediaBytes(
  em: EntityManager,
  accountId: string,
  bytes: number,
  quota: number,
): Promise<boolean> {
  const rows = await sql<{ bytes: string }[]>(
    em,
    `INSERT INTO media_usage (account_id, day, bytes)
     SELECT ?, (now() AT TIME ZONE 'UTC')::date, ?::bigint WHERE ?::bigint <= ?::bigint
     ON CONFLICT (account_id, day) DO UPDATE SET bytes = media_usage.bytes + excluded.bytes
       WHERE media_usage.bytes + excluded.bytes <= ?::bigint
     RETURNING bytes`,
    [accountId, bytes, bytes, quota, quota],
  );
  return rows.length > 0;
}

/** Whether today's quota is already used up (checked before downloading anything). */
export async function dailyQuotaExhausted(em: EntityManager, accountId: string, quota: number): Promise<boolean> {
  return (await dailyMediaBytesUsed(em, accountId)) >= quota;
}

/** Old windows are useless after their minute; one process-wide sweep keeps the table small. */
export async function sweepOldWindows(em: EntityManager): Promise<void> {
  await sql(em, `DELETE FROM rate_windows WHERE window_start < now() - interval '5 minutes'`);
}
