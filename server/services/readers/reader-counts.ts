import type { StatementRunner } from '../../../db/statements';
import { flushReaderRows, forgetDaysBefore, insertOrReadDaySalt } from '../../data/readers';
import { newSalt, oldestDayFlushed, oldestDayKept, type ReaderTally, type TallyBatch } from './reader-tally';
import { inSpan, TRACING } from '../../foundation/tracing';

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
 * The most entries one flush statement writes. A flush is one statement over its entries, and
 * under a bad plan (statistics taken while `reader_seen` was nearly empty, as after the day's
 * rows were deleted) its work grows with the square of its size: 25,000 entries at once once
 * ran past the role's statement_timeout (15 s), every attempt, so nothing was ever counted
 * again (bench/capacity.ts found it). In chunks of this size each statement stays small, and
 * what was written stays written when a later chunk fails.
 */
export const FLUSH_CHUNK = 2_000;

/**
 * What an instance does every few seconds, at `now`: loads the salts its tally needs, deletes
 * the days no longer kept (once per day and instance), then writes the tally in statements of
 * at most FLUSH_CHUNK entries, each its own transaction. A failed write gives its chunk and the
 * ones after it back to the tally, for the next flush, and throws. Returns the number of entries
 * written.
 */
export function flushReaderTally(db: StatementRunner, tally: ReaderTally, now: number): Promise<number> {
  // Traces on: a flush with beacons to write is a `readers.flush` span (a root: no request asked
  // for it); the empty ones, every few seconds, leave none.
  if (!TRACING || tally.size === 0) return flushNow(db, tally, now);
  return inSpan('readers.flush', {}, async (span) => {
    const written = await flushNow(db, tally, now);
    span.setAttribute('readers.entries', written);
    return written;
  });
}

async function flushNow(db: StatementRunner, tally: ReaderTally, now: number): Promise<number> {
  const oldest = oldestDayFlushed(now);
  for (const day of tally.daysNeedingSalt(now)) tally.setSalt(day, await loadDaySalt(db, day), oldest);
  const keptFrom = oldestDayKept(now);
  if (tally.forgottenBefore !== keptFrom) {
    await forgetDaysBefore(db, keptFrom);
    tally.forgottenBefore = keptFrom;
  }
  const batch = tally.take(oldest);
  let written = 0;
  while (written < batch.hashes.length) {
    const chunk = sliceBatch(batch, written, written + FLUSH_CHUNK);
    try {
      await flushTally(db, chunk, tally.limits.readersPerAddress);
    } catch (err) {
      tally.giveBack(sliceBatch(batch, written, batch.hashes.length));
      throw err;
    }
    written += chunk.hashes.length;
  }
  return written;
}

function sliceBatch(batch: TallyBatch, from: number, to: number): TallyBatch {
  return {
    days: batch.days.slice(from, to),
    hashes: batch.hashes.slice(from, to),
    sources: batch.sources.slice(from, to),
    publicIds: batch.publicIds.slice(from, to),
    kinds: batch.kinds.slice(from, to),
  };
}

/** Exported for tests that write a tally directly; the runtime calls flushReaderTally. */
export async function flushTally(db: StatementRunner, batch: TallyBatch, readersPerAddress: number): Promise<void> {
  if (batch.hashes.length === 0) return;
  await flushReaderRows(db, batch, readersPerAddress);
}
