import { describe, expect, it } from 'vitest';
import { addMediaBytesWithin, sweepOldWindows } from '../../server/data/usage-counters';
import { dailyMediaBytesUsed } from '../../server/services/access/account-usage';
import { chargeWindow } from '../../server/admission/window-charge';
import { createAccount, type LimitOverrides } from '../../server/services/access/accounts';
import { randomUUID } from 'node:crypto';
import { awayFromMinuteBoundary, domainDatabase, query } from './support';

/** The per-account limits as PostgreSQL keeps them: exact under any concurrency, per minute, per UTC day. */
const parts = domainDatabase();
const db = () => parts.db();

async function account(limits: LimitOverrides = {}) {
  return (await createAccount(db(), `l-${randomUUID().slice(0, 12)}`, { limits })).account;
}

describe('minute windows (chargeWindow)', () => {
  it('admits exactly the limit of 100 parallel requests, counting down RateLimit-Remaining', async () => {
    const author = await account({ write_per_min: 30 });
    await awayFromMinuteBoundary();
    const states = await Promise.all(Array.from({ length: 100 }, () => chargeWindow(db(), author, 'write')));
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
    const [a, b] = [await account({ publish_per_min: 1, write_per_min: 1 }), await account({ publish_per_min: 1 })];
    await awayFromMinuteBoundary();
    expect((await chargeWindow(db(), a, 'publish')).allowed).toBe(true);
    expect((await chargeWindow(db(), a, 'publish')).allowed).toBe(false);
    expect((await chargeWindow(db(), a, 'write')).allowed).toBe(true);
    expect((await chargeWindow(db(), b, 'publish')).allowed).toBe(true);
  });

  it('forgets windows older than five minutes when swept, and keeps the current one', async () => {
    const author = await account();
    await awayFromMinuteBoundary();
    await chargeWindow(db(), author, 'read');
    await query(
      db(),
      'old_window',
      `INSERT INTO rate_windows (account_id, class, window_start, count) VALUES ($1, 'read', now() - interval '10 minutes', 5)`,
      [author.id],
    );
    await sweepOldWindows(db());
    const rows = await query<{ count: number }>(
      db(),
      'windows_left',
      `SELECT count FROM rate_windows WHERE account_id = $1`,
      [author.id],
    );
    expect(rows.map((r) => Number(r.count))).toEqual([1]);
  });
});

describe('daily media quota (addMediaBytesWithin)', () => {
  it('lets exactly as many parallel charges through as fit, and records exactly what was let through', async () => {
    const author = await account();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => addMediaBytesWithin(db(), author.id, 100, 1000)),
    );
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(1000);
  });

  it('refuses a single charge larger than the whole quota without recording anything', async () => {
    const author = await account();
    expect(await addMediaBytesWithin(db(), author.id, 1001, 1000)).toBe(false);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(0);
    expect(await addMediaBytesWithin(db(), author.id, 1000, 1000)).toBe(true);
    expect(await addMediaBytesWithin(db(), author.id, 1, 1000)).toBe(false);
  });
});
