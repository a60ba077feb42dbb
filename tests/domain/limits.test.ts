import { describe, expect, it } from 'vitest';
import { sql } from '../../db/sql';
import {
  chargeWindow,
  dailyMediaBytesUsed,
  sweepOldWindows,
  tryAddDailyMediaBytes,
} from '../../server/services/limits';
import { awayFromMinuteBoundary, newAccount, domainDatabase } from './support';

/** The per-account limits as PostgreSQL keeps them: exact under any concurrency, per minute, per UTC day. */
const db = domainDatabase();

describe('minute windows (chargeWindow)', () => {
  it('admits exactly the limit of 100 parallel requests, counting down RateLimit-Remaining', async () => {
    const account = await newAccount(db.em());
    await awayFromMinuteBoundary();
    const states = await Promise.all(Array.from({ length: 100 }, () => chargeWindow(db.em(), account.id, 'write', 30)));
    const admitted = states.filter((s) => s.allowed);
    expect(admitted).toHaveLength(30);
    expect(admitted.map((s) => s.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (const refused of states.filter((s) => !s.allowed)) expect(refused.remaining).toBe(0);
    // One fixed window, aligned to the minute, for every request of the burst.
    expect(new Set(states.map((s) => s.reset)).size).toBe(1);
    expect(states[0]!.reset % 60).toBe(0);
    for (const s of states) expect(s.retryAfter).toBeGreaterThanOrEqual(1);
    for (const s of states) expect(s.retryAfter).toBeLessThanOrEqual(60);
  });

  it('keeps classes and accounts apart', async () => {
    const [a, b] = [await newAccount(db.em()), await newAccount(db.em())];
    await awayFromMinuteBoundary();
    expect((await chargeWindow(db.em(), a.id, 'publish', 1)).allowed).toBe(true);
    expect((await chargeWindow(db.em(), a.id, 'publish', 1)).allowed).toBe(false);
    expect((await chargeWindow(db.em(), a.id, 'write', 1)).allowed).toBe(true);
    expect((await chargeWindow(db.em(), b.id, 'publish', 1)).allowed).toBe(true);
  });

  it('forgets windows older than five minutes when swept, and keeps the current one', async () => {
    const account = await newAccount(db.em());
    await awayFromMinuteBoundary();
    await chargeWindow(db.em(), account.id, 'read', 60);
    await sql(
      db.em(),
      `INSERT INTO rate_windows (account_id, class, window_start, count) VALUES (?, 'read', now() - interval '10 minutes', 5)`,
      [account.id],
    );
    await sweepOldWindows(db.em());
    const rows = await sql<{ count: number }[]>(db.em(), `SELECT count FROM rate_windows WHERE account_id = ?`, [
      account.id,
    ]);
    expect(rows.map((r) => Number(r.count))).toEqual([1]);
  });
});

describe('daily media quota (tryAddDailyMediaBytes)', () => {
  it('lets exactly as many parallel charges through as fit, and records exactly what was let through', async () => {
    const account = await newAccount(db.em());
    const results = await Promise.all(
      Array.from({ length: 25 }, () => tryAddDailyMediaBytes(db.em(), account.id, 100, 1000)),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await dailyMediaBytesUsed(db.em(), account.id)).toBe(1000);
  });

  it('refuses a single charge larger than the whole quota without recording anything', async () => {
    const account = await newAccount(db.em());
    expect(await tryAddDailyMediaBytes(db.em(), account.id, 1001, 1000)).toBe(false);
    expect(await dailyMediaBytesUsed(db.em(), account.id)).toBe(0);
    expect(await tryAddDailyMediaBytes(db.em(), account.id, 1000, 1000)).toBe(true);
    expect(await tryAddDailyMediaBytes(db.em(), account.id, 1, 1000)).toBe(false);
  });
});
