import { statement, type StatementRunner } from '../../db/statements';
import { popularitySql } from './popularity';
import { newSalt, oldestDayFlushed, oldestDayKept, type ReaderTally, type TallyBatch } from './reader-tally';

/**
 * The database side of reader counting: the shared salt of a day, and the flush of a tally.
 * Both run on the prepared-statement pool, never on a reader's request.
 */

/**
 * The salt of `day`, created by the first instance that asks. One statement; zero rows only
 * when another instance created the row concurrently (then asking again finds it).
 */
const DAY_SALT = statement(
  'reader_day_salt',
  `WITH made AS (INSERT INTO reader_salts (day, salt) VALUES ($1::date, $2) ON CONFLICT (day) DO NOTHING RETURNING salt)
   SELECT salt FROM made UNION ALL SELECT salt FROM reader_salts WHERE day = $1::date`,
);

export async function loadDaySalt(db: StatementRunner, day: string): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const rows = await db.run<{ salt: string }>(DAY_SALT, [day, newSalt()]);
    if (rows[0]) return rows[0].salt;
  }
  throw new Error(`reader salt of ${day}: not found after creating it`);
}

/**
 * Deletes the salts, seen hashes and sources of days before `$1` (oldestDayKept): after that
 * nothing links a hash of those days to an address.
 */
const FORGET_DAYS = statement(
  'reader_forget_days',
  `WITH gone AS (DELETE FROM reader_salts WHERE day < $1::date),
        sources AS (DELETE FROM reader_sources WHERE day < $1::date)
   DELETE FROM reader_seen WHERE day < $1::date`,
);

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
    await db.run(FORGET_DAYS, [keptFrom]);
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

/**
 * One flush, one statement. In order:
 * 1. `ev`: the entries of a day whose salt is still kept that name a published article; the
 *    rest (a draft, an unpublished or deleted article, a made-up id; a day whose salt is gone:
 *    a clock far off, a flush held too long) is dropped here, before anything is stored.
 * 2. `candidates`: those not counted yet on their day (`reader_seen`), ranked within their source.
 * 3. `granted`: each source's grant for this flush, taken from its `reader_sources` row under the
 *    row's lock (`ON CONFLICT DO UPDATE`), so that flushes of several instances together never
 *    give one address more than `$6` readers of one article, kind and day. Rows are taken in
 *    (day, source) order, so two flushes lock them in the same order.
 * 4. `fresh`: the candidates within their source's grant, inserted into `reader_seen`
 *    (`ON CONFLICT DO NOTHING` keeps only hashes no other flush inserted meanwhile).
 * 5. The new readers are added per article, day and kind to the daily rows of the day each
 *    beacon arrived on, and to the article's totals and popularity. Additive, so instances flush
 *    into the same rows in any order.
 */
const FLUSH = statement(
  'reader_flush',
  `WITH ev AS (
     SELECT e.day, e.hash, e.source, e.kind, p.id AS post_id
       FROM unnest($1::date[], $2::text[], $3::text[], $4::text[], $5::text[]) AS e(day, hash, source, public_id, kind)
       JOIN reader_salts s ON s.day = e.day
       JOIN posts p ON p.public_id = e.public_id AND p.deleted_at IS NULL AND p.published_version IS NOT NULL
   ), candidates AS (
     SELECT ev.*, row_number() OVER (PARTITION BY ev.day, ev.source ORDER BY ev.hash) AS rank
       FROM ev WHERE NOT EXISTS (SELECT 1 FROM reader_seen r WHERE r.day = ev.day AND r.hash = ev.hash)
   ), granted AS (
     INSERT INTO reader_sources AS q (day, source, readers, previous)
     SELECT day, source, least(count(*), $6::int), 0 FROM candidates GROUP BY day, source ORDER BY day, source
     ON CONFLICT (day, source) DO UPDATE
       SET previous = q.readers, readers = least($6::int, q.readers + excluded.readers)
     RETURNING day, source, readers - previous AS grant
   ), fresh AS (
     INSERT INTO reader_seen (day, hash)
     SELECT c.day, c.hash FROM candidates c JOIN granted g ON g.day = c.day AND g.source = c.source
      WHERE c.rank <= g.grant ORDER BY c.day, c.hash
     ON CONFLICT DO NOTHING RETURNING day, hash
   ), counted AS (
     SELECT ev.post_id, ev.day,
            count(*) FILTER (WHERE ev.kind = 'open')::int AS opens,
            count(*) FILTER (WHERE ev.kind = 'read')::int AS reads,
            count(*) FILTER (WHERE ev.kind = 'complete')::int AS completes
       FROM fresh JOIN ev ON ev.day = fresh.day AND ev.hash = fresh.hash
      GROUP BY ev.post_id, ev.day
   ), daily AS (
     INSERT INTO reader_daily AS d (post_id, day, opens, reads, completes)
     SELECT post_id, day, opens, reads, completes FROM counted
     ON CONFLICT (post_id, day) DO UPDATE
       SET opens = d.opens + excluded.opens, reads = d.reads + excluded.reads, completes = d.completes + excluded.completes
   ), totals AS (
     SELECT post_id, sum(opens)::int AS opens, sum(reads)::int AS reads, sum(completes)::int AS completes
       FROM counted GROUP BY post_id
   )
   UPDATE posts p
      SET open_count = p.open_count + t.opens,
          read_count = p.read_count + t.reads,
          complete_count = p.complete_count + t.completes,
          popularity = ${popularitySql({
            likes: 'p.like_count',
            comments: 'p.comment_count',
            saves: 'p.save_count',
            reads: 'p.read_count + t.reads',
            since: 'coalesce(p.published_at, p.created_at)',
          })}
     FROM totals t WHERE p.id = t.post_id`,
);

/** Exported for tests that write a tally directly; the runtime calls flushReaderTally. */
export async function flushTally(db: StatementRunner, batch: TallyBatch, readersPerAddress: number): Promise<void> {
  if (batch.hashes.length === 0) return;
  await db.run(FLUSH, [batch.days, batch.hashes, batch.sources, batch.publicIds, batch.kinds, readersPerAddress]);
}
