import type { StatementRunner } from '../../db/statements';
import { flushReaderRows, forgetDaysBefore, insertOrReadDaySalt } from '../data/readers';
import { newSalt, oldestDayFlushed, oldestDayKept, type ReaderTally, type TallyBatch } from './reader-tally';

/**
 * When reader counts reach the database: the shared salt of a day, and the flush of a tally
 * (server/data/readers.ts has the statements). Never on a reader's request.
 */

export async function loadDaySalt(db: StatementRunner, day: string): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const salt = await insertOrReadDaySalt(db, day, newSalt());
    if (salt) return salt;
  }
  throw new Error(`reader salt of ${day}: not found after creating it`);
}

/**
 * What an instance does every few seconds, at `now`: loads the salts its tally needs, deletes
 * the days no longer kept (once per day and instance), then writes the tally in one statement.
 * A failed write gives its batch back to the tally, for the next flush, and throws. Returns
 * the number of entries written.
 */
export async function flushReaderTally(db: StatementRunner, tally: ReaderTally, now: number): Promise<number> {
  const oldest = oldestDayFlushed(now);
  for (const day of tally.daysNeedingSalt(now)) tally.setSalt(day, await loadDaySalt(db, day), oldest);
  const keptFrom = oldestDayKept(now);
  if (tally.forgottenBefore !== keptFrom) {
    await forgetDaysBefore(db, keptFrom);
    tally.forgottenBefore = keptFrom;
  }
  const batch = tally.take(oldest);
  if (batch.hashes.length === 0) return 0;
  try {
    await flushTally(db, batch, tally.limits.readersPerAddress);
  } catch (err) {
    tally.giveBack(batch);
    throw err;
  }
  return batch.hashes.length;
}

/** Exported for tests that write a tally directly; the runtime calls flushReaderTally. */
export async function flushTally(db: StatementRunner, batch: TallyBatch, readersPerAddress: number): Promise<void> {
  if (batch.hashes.length === 0) return;
  await flushReaderRows(db, batch, readersPerAddress);
}
