import type { StatementRunner } from '../../../db/statements';
import { admittedMediaBytesToday, mediaBytesToday, usedThisMinute } from '../../data/usage-counters';
import type { Account } from '../../model/account';
import { LIMITS, RATE_CLASS_NAMES, type LimitName, type RateClass } from '../../model/rate-classes';

/**
 * Per-account limits as the account's pages and GET /me show them (contract: "Limits"). The
 * charge of a minute window is the admission's (server/admission/window-charge.ts); the daily
 * media byte quota, which resets at midnight UTC, is charged where files are stored (media-storage.ts).
 */

/** An account's limits as `GET /me` and the CLI show them, in the contract's order. */
export function limitsOf(account: Account): Record<LimitName, number> {
  return Object.fromEntries(LIMITS.map((l) => [l.name, account[l.field]])) as Record<LimitName, number>;
}

/**
 * Bytes used by the account since the start of the current UTC day (the console). Only hands the
 * call on: app/ may not import server/data (eslint.config.mjs `FLOORS`).
 */
export function dailyMediaBytesUsed(db: StatementRunner, accountId: string): Promise<number> {
  return mediaBytesToday(db, accountId);
}

/** Whether today's quota is already used up (checked before downloading anything). */
export async function dailyQuotaExhausted(
  db: StatementRunner,
  account: Pick<Account, 'id' | 'dailyMediaBytes'>,
): Promise<boolean> {
  return (await mediaBytesToday(db, account.id)) >= account.dailyMediaBytes;
}

/** Units spent in the current minute window, per rate class (the console's account page). */
export async function spentThisMinute(db: StatementRunner, accountId: string): Promise<Record<RateClass, number>> {
  const used = await usedThisMinute(db, accountId);
  return Object.fromEntries(RATE_CLASS_NAMES.map((cls) => [cls, used.get(cls) ?? 0])) as Record<RateClass, number>;
}

/** GET /me's read of today's media bytes, run in the statement that admits the caller. */
export const mediaBytesRead = () => admittedMediaBytesToday();

/** Today's bytes from what `mediaBytesRead` found (no row: nothing stored today). */
export const mediaBytesFound = (rows: readonly { bytes: string }[]) => (rows[0] ? Number(rows[0].bytes) : 0);
