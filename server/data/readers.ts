import { statement, type StatementRunner } from '../../db/statements';
import { popularitySql } from '../model/popularity';
import type { ReaderDay } from '../model/readers';

/**
 * The readers aggregate's rows: the salts of the days (`reader_salts`), the readers counted on a
 * day (`reader_seen`) and where they came from (`reader_sources`), the daily counts per article
 * (`reader_daily`) and the operator's batches (`reader_event_batches`); the counters on `posts`
 * they move. SQL only: server/services/readers/reader-counts.ts and reader-events.ts say when and why.
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

export async function insertOrReadDaySalt(db: StatementRunner, day: string, fresh: string): Promise<string | null> {
  const [row] = await db.run<{ salt: string }>(DAY_SALT, [day, fresh]);
  return row?.salt ?? null;
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

export async function forgetDaysBefore(db: StatementRunner, oldestKept: string): Promise<void> {
  await db.run(FORGET_DAYS, [oldestKept]);
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

/** One flush's beacons, as parallel arrays (the statement unnests them). */
export interface FlushRows {
  days: string[];
  hashes: string[];
  sources: string[];
  publicIds: string[];
  kinds: string[];
}

export async function flushReaderRows(db: StatementRunner, rows: FlushRows, readersPerAddress: number): Promise<void> {
  await db.run(FLUSH, [rows.days, rows.hashes, rows.sources, rows.publicIds, rows.kinds, readersPerAddress]);
}

// The operator's batches -----------------------------------------------------------------------

/**
 * One statement, atomic: claim the batch id (its answer stored with it), then, only when the
 * claim is new, apply the events of known live articles. A replayed batch id finds its stored
 * answer and applies nothing. Sums are taken in bigint and clamped to 0…2^31−1, so counters
 * never go below 0 (an `unlike` of nothing stays 0). Opens, reads and full reads also go to
 * today's daily row, so the totals stay the sums the console's chart shows.
 */
const delta = (up: string, down?: string) =>
  `coalesce(sum(n) FILTER (WHERE kind = '${up}'), 0)${down ? ` - coalesce(sum(n) FILTER (WHERE kind = '${down}'), 0)` : ''}`;
const clamp = (expr: string) => `least(2147483647, greatest(0, ${expr}))::int`;

const APPLY_BATCH = statement(
  'reader_events_apply',
  `WITH ev AS (
     SELECT e.post_id, e.kind, e.n::bigint AS n FROM unnest($2::uuid[], $3::text[], $4::int[]) AS e(post_id, kind, n)
   ), known AS (
     SELECT id FROM posts WHERE id = ANY($2::uuid[]) AND deleted_at IS NULL
   ), answer AS (
     SELECT jsonb_build_object(
       'applied', (SELECT count(*) FROM ev WHERE post_id IN (SELECT id FROM known)),
       'unknown_posts', coalesce((SELECT jsonb_agg(DISTINCT post_id::text) FROM ev WHERE post_id NOT IN (SELECT id FROM known)), '[]'::jsonb)
     ) AS result
   ), claim AS (
     INSERT INTO reader_event_batches (batch_id, result) SELECT $1, result FROM answer
     ON CONFLICT (batch_id) DO NOTHING RETURNING result
   ), d AS (
     SELECT post_id,
            ${delta('impression', 'unimpression')} AS impressions, ${delta('open', 'unopen')} AS opens,
            ${delta('read', 'unread')} AS reads, ${delta('complete', 'uncomplete')} AS completes, ${delta('like', 'unlike')} AS likes,
            ${delta('comment', 'uncomment')} AS comments, ${delta('save', 'unsave')} AS saves
       FROM ev WHERE EXISTS (SELECT 1 FROM claim) AND post_id IN (SELECT id FROM known)
      GROUP BY post_id
   ), daily AS (
     INSERT INTO reader_daily AS r (post_id, day, opens, reads, completes)
     SELECT post_id, current_date, ${clamp('opens')}, ${clamp('reads')}, ${clamp('completes')} FROM d
      WHERE opens <> 0 OR reads <> 0 OR completes <> 0
     ON CONFLICT (post_id, day) DO UPDATE
       -- The signed change (a correction takes away), not the proposed row's, which is clamped at 0.
       SET opens = ${clamp('r.opens + (SELECT opens FROM d WHERE d.post_id = excluded.post_id)')},
           reads = ${clamp('r.reads + (SELECT reads FROM d WHERE d.post_id = excluded.post_id)')},
           completes = ${clamp('r.completes + (SELECT completes FROM d WHERE d.post_id = excluded.post_id)')}
   ), updated AS (
     UPDATE posts p
        SET impression_count = ${clamp('p.impression_count + d.impressions')},
            open_count = ${clamp('p.open_count + d.opens')},
            read_count = ${clamp('p.read_count + d.reads')},
            complete_count = ${clamp('p.complete_count + d.completes')},
            like_count = ${clamp('p.like_count + d.likes')},
            comment_count = ${clamp('p.comment_count + d.comments')},
            save_count = ${clamp('p.save_count + d.saves')},
            popularity = ${popularitySql({
              likes: clamp('p.like_count + d.likes'),
              comments: clamp('p.comment_count + d.comments'),
              saves: clamp('p.save_count + d.saves'),
              reads: clamp('p.read_count + d.reads'),
              since: 'coalesce(p.published_at, p.created_at)',
            })}
       FROM d WHERE p.id = d.post_id AND p.deleted_at IS NULL
   )
   SELECT result FROM claim UNION ALL SELECT result FROM reader_event_batches WHERE batch_id = $1`,
);

/** The stored answer of the batch, or nothing when another request was applying the same batch id at that moment. */
export async function applyEventRows(
  db: StatementRunner,
  batchId: string,
  events: { postIds: string[]; kinds: string[]; counts: number[] },
): Promise<{ applied: number; unknown_posts: string[] } | null> {
  const [row] = await db.run<{ result: { applied: number; unknown_posts: string[] } }>(APPLY_BATCH, [
    batchId,
    events.postIds,
    events.kinds,
    events.counts,
  ]);
  return row?.result ?? null;
}

/**
 * A replayed batch id applies nothing for this long; older answers are deleted (the background
 * sweep), so the table holds about a month of the operator's batches.
 */
const PRUNE_BATCHES = statement(
  'reader_events_prune',
  `DELETE FROM reader_event_batches WHERE created_at < now() - interval '30 days'`,
);

export async function pruneEventBatches(db: StatementRunner): Promise<void> {
  await db.run(PRUNE_BATCHES, []);
}

// The console's chart ------------------------------------------------------------------------------

/** The last `$1` UTC days, today included, each with its counts (0 for a day without any) of the author's article. */
const READER_DAYS = statement(
  'reader_days',
  `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(r.opens, 0) AS opens, coalesce(r.reads, 0) AS reads,
          coalesce(r.completes, 0) AS completes
     FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($1::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
     LEFT JOIN reader_daily r ON r.day = d.day::date
      AND r.post_id = (SELECT id FROM posts WHERE id = $2 AND account_id = $3)
    ORDER BY d.day`,
);

export async function readerDayRows(
  db: StatementRunner,
  accountId: string,
  postId: string,
  days: number,
): Promise<ReaderDay[]> {
  const rows = await db.run<ReaderDay>(READER_DAYS, [days, postId, accountId]);
  return rows.map((r) => ({
    day: r.day,
    opens: Number(r.opens),
    reads: Number(r.reads),
    completes: Number(r.completes),
  }));
}
