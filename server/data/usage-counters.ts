import { statement, type StatementRunner } from '../../db/statements';
import { admittedStatement } from '../admission/admitted-statement';
import { ADMITTED_ACCOUNT, sql } from '../admission/sql';
import { CURRENT_MINUTE } from '../admission/window-charge';

/**
 * The limits aggregate's rows: per-account minute windows (`rate_windows`, UNLOGGED) and the
 * daily media byte quota (`media_usage`). SQL only; the charge of a window is the admission's
 * (server/admission/window-charge.ts), which every rated request makes.
 */

/** Today's UTC day, whatever the session's time zone. */
const TODAY = "(now() AT TIME ZONE 'UTC')::date";

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

const MEDIA_BYTES_TODAY = statement(
  'media_bytes_today',
  `SELECT bytes FROM media_usage WHERE account_id = $1 AND day = ${TODAY}`,
);

const ADMITTED_MEDIA_BYTES_TODAY = admittedStatement<never, { bytes: string }>({
  name: 'admitted_media_bytes_today',
  cls: 'read',
  read: () => sql`SELECT bytes FROM media_usage WHERE account_id = ${ADMITTED_ACCOUNT} AND day = ${TODAY}`,
});

/** GET /me's read: today's bytes of the caller admitted by the same statement. */
export const admittedMediaBytesToday = () => ADMITTED_MEDIA_BYTES_TODAY.read({});

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
