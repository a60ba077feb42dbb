import type { StatementRunner } from '../../db/statements';
import type { Account } from '../data/access';
import { admittedMediaBytesToday } from '../data/admitted-reads';
import type { Admitter } from './access';
import { chargeWindowRow, mediaBytesToday, usedThisMinute, type WindowRow } from '../data/limits';
import type { LimitWindow } from '../foundation/errors';
import { LIMITS, RATE_CLASSES, RATE_CLASS_NAMES, type LimitName, type RateClass } from '../model/rate-classes';

/**
 * Per-account limits (contract: "Limits"): fixed 60-second windows aligned to the minute, and a
 * daily media byte quota that resets at midnight UTC.
 *
 * Counters live in PostgreSQL so every app instance sees the same numbers (server/data/limits.ts:
 * one `INSERT … ON CONFLICT DO UPDATE … RETURNING` per charge, exact under any concurrency: 100
 * parallel requests against 30 give exactly 30 successes). A rejected request still counts,
 * which only matters for `RateLimit-Remaining` (it stays 0). rate-limiter-flexible's PostgreSQL
 * store was considered: its windows start at a key's first hit (not at a fixed minute boundary)
 * and it cannot express the UTC-day byte quota, so both would need custom SQL anyway.
 */

/** An account's limits as `GET /me` and the CLI show them, in the contract's order. */
export function limitsOf(account: Account): Record<LimitName, number> {
  return Object.fromEntries(LIMITS.map((l) => [l.name, account[l.field]])) as Record<LimitName, number>;
}

export function limitFor(account: Account, cls: RateClass): number {
  return account[RATE_CLASSES[cls].field];
}

/** A minute window after a charge: the limit, what is left, when it resets, and whether this request fit. */
export interface WindowState extends LimitWindow {
  allowed: boolean;
}

/**
 * One unit of the account's `cls` minute window, for every caller (REST procedures, the
 * multipart upload, the console, rehosting).
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

/** Bytes used by the account since the start of the current UTC day (GET /me, the console). */
export function dailyMediaBytesUsed(db: StatementRunner, accountId: string): Promise<number> {
  return mediaBytesToday(db, accountId);
}

/** GET /me's account and its bytes used today, read in the statement that admits the caller. */
export async function admittedAccountUsage(
  admit: Admitter,
): Promise<{ account: Account; dailyMediaBytesUsed: number }> {
  const { auth, rows } = await admit(admittedMediaBytesToday());
  return { account: auth.account, dailyMediaBytesUsed: rows[0] ? Number(rows[0].bytes) : 0 };
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
