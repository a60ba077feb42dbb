import { z } from 'zod';
import { statement, type StatementRunner } from '../../db/statements';
import { uuidString } from '../uuid';
import { popularitySql } from './popularity';

/**
 * The platform's events (impressions in its feed, likes, comments, saves, and opens or reads
 * it counted itself), fed in by an operator: `POST /api/reader-events` (server/http/reader-events.ts).
 */
const READER_EVENT_KINDS = [
  'impression',
  'open',
  'read',
  'complete',
  // Corrections: the platform's fraud detection takes back what it judged not to be readers.
  'unimpression',
  'unopen',
  'unread',
  'uncomplete',
  'like',
  'unlike',
  'comment',
  'uncomment',
  'save',
  'unsave',
] as const;

export const ReaderEventBatchSchema = z
  .object({
    batch_id: z.string().min(1, 'must not be empty').max(100, 'at most 100 characters'),
    events: z
      .array(
        z
          .object({
            post_id: uuidString(),
            kind: z.enum(READER_EVENT_KINDS),
            count: z.number().int().min(1).max(1_000_000).optional(),
          })
          .strict(),
      )
      .max(1000, 'at most 1000 events'),
  })
  .strict();

export type ReaderEventBatch = z.infer<typeof ReaderEventBatchSchema>;

export const ReaderEventsResultSchema = z.object({
  applied: z.number().int(),
  unknown_posts: z.array(z.string()),
});
export type ReaderEventsResult = z.infer<typeof ReaderEventsResultSchema>;

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

/**
 * A replayed batch id applies nothing for this long; older answers are deleted (the background
 * sweep), so the table holds about a month of the operator's batches.
 */
const PRUNE_BATCHES = statement(
  'reader_events_prune',
  `DELETE FROM reader_event_batches WHERE created_at < now() - interval '30 days'`,
);

export async function pruneReaderEventBatches(db: StatementRunner): Promise<void> {
  await db.run(PRUNE_BATCHES, []);
}

export async function applyReaderEvents(db: StatementRunner, batch: ReaderEventBatch): Promise<ReaderEventsResult> {
  const ids = batch.events.map((e) => e.post_id.toLowerCase());
  const kinds = batch.events.map((e) => e.kind);
  const counts = batch.events.map((e) => e.count ?? 1);
  for (let attempt = 0; attempt < 3; attempt++) {
    const rows = await db.run<{ result: ReaderEventsResult }>(APPLY_BATCH, [batch.batch_id, ids, kinds, counts]);
    // Zero rows: the same batch id was being applied by another request that committed meanwhile.
    if (rows[0]) return rows[0].result;
  }
  throw new Error('reader events: batch neither applied nor found');
}
