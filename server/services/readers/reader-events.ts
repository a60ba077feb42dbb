import { z } from 'zod';
import type { StatementRunner } from '../../../db/statements';
import { uuidString } from '../../foundation/uuid';
import { applyEventRows, pruneEventBatches } from '../../data/readers';

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

/** Answers of applied batches older than their replay window (30 days) are deleted. */
export function pruneReaderEventBatches(db: StatementRunner): Promise<void> {
  return pruneEventBatches(db);
}

export async function applyReaderEvents(db: StatementRunner, batch: ReaderEventBatch): Promise<ReaderEventsResult> {
  const ids = batch.events.map((e) => e.post_id.toLowerCase());
  const kinds = batch.events.map((e) => e.kind);
  const counts = batch.events.map((e) => e.count ?? 1);
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await applyEventRows(db, batch.batch_id, { postIds: ids, kinds, counts });
    // Nothing: the same batch id was being applied by another request that committed meanwhile.
    if (result) return result;
  }
  throw new Error('reader events: batch neither applied nor found');
}
