import { statement, type StatementRunner } from '../../db/statements';
import { popularitySql } from './popularity';
import { newSalt, type TallyBatch } from './reader-tally';

/**
 * The database side of reader counting: the shared salt of a day, and the flush of a tally.
 * Both run on the prepared-statement pool, never on a reader's request.
 */

/**
 * The salt of `day`, created by the first instance that asks; also deletes the salts and seen
 * hashes of days before `today`, so no salt outlives its day by more than the first flush of
 * the next. One statement; zero rows only when another instance created the row concurrently
 * (then asking again finds it).
 */
const DAY_SALT = statement(
  'reader_day_salt',
  `WITH gone AS (DELETE FROM reader_salts WHERE day < $3::date),
        forgotten AS (DELETE FROM reader_seen WHERE day < $3::date),
        made AS (INSERT INTO reader_salts (day, salt) VALUES ($1::date, $2) ON CONFLICT (day) DO NOTHING RETURNING salt)
   SELECT salt FROM made UNION ALL SELECT salt FROM reader_salts WHERE day = $1::date`,
);

export async function loadDaySalt(db: StatementRunner, day: string, today: string): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const rows = await db.run<{ salt: string }>(DAY_SALT, [day, newSalt(), today]);
    if (rows[0]) return rows[0].salt;
  }
  throw new Error(`reader salt of ${day}: not found after creating it`);
}

/**
 * One flush, one statement: keep only the hashes no instance has counted today (`reader_seen`,
 * ON CONFLICT DO NOTHING), count them per published article, day and kind, add them to the
 * daily rows and to the article's totals (and its popularity). Additive, so instances flush
 * into the same rows in any order. A hash naming no published article (a draft, an
 * unpublished or deleted one, a made-up id) is remembered as seen and counts nothing.
 */
const FLUSH = statement(
  'reader_flush',
  `WITH ev AS (
     SELECT * FROM unnest($1::date[], $2::text[], $3::text[], $4::text[]) AS e(day, hash, public_id, kind)
   ), fresh AS (
     INSERT INTO reader_seen (day, hash) SELECT day, hash FROM ev ON CONFLICT DO NOTHING RETURNING day, hash
   ), counted AS (
     SELECT p.id AS post_id, ev.day,
            count(*) FILTER (WHERE ev.kind = 'open')::int AS opens,
            count(*) FILTER (WHERE ev.kind = 'read')::int AS reads,
            count(*) FILTER (WHERE ev.kind = 'complete')::int AS completes
       FROM fresh JOIN ev ON ev.day = fresh.day AND ev.hash = fresh.hash
       JOIN posts p ON p.public_id = ev.public_id AND p.deleted_at IS NULL AND p.published_version IS NOT NULL
      GROUP BY p.id, ev.day
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

export async function flushTally(db: StatementRunner, batch: TallyBatch): Promise<void> {
  if (batch.hashes.length === 0) return;
  await db.run(FLUSH, [batch.days, batch.hashes, batch.publicIds, batch.kinds]);
}
