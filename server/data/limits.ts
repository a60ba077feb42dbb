import { statement, type StatementRunner } from '../../db/statements';

/**
 * The limits aggregate's rows: per-account minute windows (`rate_windows`, UNLOGGED) and the
 * daily media byte quota (`media_usage`). SQL only; the rules (what a window allows, which limit
 * applies) are server/services/limits.ts's.
 */

/** The start of the current UTC minute: the one definition of a fixed 60-second window. */
const CURRENT_MINUTE = 'to_timestamp(floor(extract(epoch FROM clock_timestamp()) / 60) * 60)';

/** Today's UTC day, whatever the session's time zone. */
const TODAY = "(now() AT TIME ZONE 'UTC')::date";

/**
 * `units` of the current minute window (an SQL expression; one by default), counted atomically
 * (the row lock makes it exact under any concurrency). `accountId` is an SQL expression and
 * `from` an optional FROM clause, so the access statements charge the window in the same
 * statement that finds the token; `$2` is the rate class. The count returned is the window's
 * after the charge: a batch of admitted reads (admitted-reads.ts) charges one unit per request
 * and numbers its requests back from it.
 */
export const windowUpsert = (accountId: string, from = '', units = '1') => `
  INSERT INTO rate_windows (account_id, class, window_start, count)
  SELECT ${accountId}, $2, ${CURRENT_MINUTE}, ${units} ${from}
  ON CONFLICT (account_id, class, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
  RETURNING count, extract(epoch FROM window_start)::bigint AS window_start, extract(epoch FROM clock_timestamp()) AS now`;

/** What `windowUpsert` returns (epoch seconds as PostgreSQL's numeric text). */
export interface WindowRow {
  count: number;
  window_start: string;
  now: string;
}

const CHARGE_WINDOW = statement('charge_window', windowUpsert('$1::uuid'));

export async function chargeWindowRow(db: StatementRunner, accountId: string, cls: string): Promise<WindowRow> {
  return (await db.run<WindowRow>(CHARGE_WINDOW, [accountId, cls]))[0]!;
}

const USED_THIS_MINUTE = statement(
  'windows_used_this_minute',
  `SELECT class, count FROM rate_windows WHERE account_id = $1 AND window_start = ${CURRENT_MINUTE}`,
);

/** Units already spent in the current minute, by rate class. */
export async function usedThisMinute(db: StatementRunner, accountId: string): Promise<Map<string, number>> {
  const rows = await db.run<{ class: string; count: number }>(USED_THIS_MINUTE, [accountId]);
  return new Map(rows.map((r) => [r.class, Number(r.count)]));
}

/** Minute windows are useless after their minute; one process-wide sweep keeps the table small. */
const SWEEP_WINDOWS = statement(
  'windows_sweep',
  `DELETE FROM rate_windows WHERE window_start < now() - interval '5 minutes'`,
);

export async function sweepOldWindows(db: StatementRunner): Promise<void> {
  await db.run(SWEEP_WINDOWS, []);
}

/** Today's bytes of the account `account` (SQL): GET /me reads it beside the account, admitted (access.ts). */
export const mediaBytesTodayQuery = (account: string) =>
  `SELECT bytes FROM media_usage WHERE account_id = ${account} AND day = ${TODAY}`;

const MEDIA_BYTES_TODAY = statement('media_bytes_today', mediaBytesTodayQuery('$1'));

/** Bytes stored by the account since the start of the current UTC day. */
export async function mediaBytesToday(db: StatementRunner, accountId: string): Promise<number> {
  const rows = await db.run<{ bytes: string }>(MEDIA_BYTES_TODAY, [accountId]);
  return rows[0] ? Number(rows[0].bytes) : 0;
}

/**
 * Adds `$2` bytes to today's usage only if the result stays within the quota `$3`, atomically;
 * no row back: the quota would be passed, and nothing was recorded.
 */
const ADD_MEDIA_BYTES = statement(
  'media_bytes_add',
  `INSERT INTO media_usage (account_id, day, bytes)
   SELECT $1, ${TODAY}, $2::bigint WHERE $2::bigint <= $3::bigint
   ON CONFLICT (account_id, day) DO UPDATE SET bytes = media_usage.bytes + excluded.bytes
     WHERE media_usage.bytes + excluded.bytes <= $3::bigint
   RETURNING bytes`,
);

export async function addMediaBytesWithin(
  db: StatementRunner,
  accountId: string,
  bytes: number,
  quota: number,
): Promise<boolean> {
  return (await db.run(ADD_MEDIA_BYTES, [accountId, bytes, quota])).length > 0;
}

/** Gives back bytes charged for a store that failed after the charge. */
const REFUND_MEDIA_BYTES = statement(
  'media_bytes_refund',
  `UPDATE media_usage SET bytes = greatest(0, bytes - $2::bigint) WHERE account_id = $1 AND day = ${TODAY}`,
);

export async function refundMediaBytes(db: StatementRunner, accountId: string, bytes: number): Promise<void> {
  await db.run(REFUND_MEDIA_BYTES, [accountId, bytes]);
}
