import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import type { PostStatus } from '../../db/entities';
import { RATE_CLASS_NAMES, type RateClass } from '../services/rate-classes';

/** Console-only reads that have no REST counterpart (and so no service function). */

/** The service's one UUID pattern, as the REST routes use it. */

/** Live articles per status, for the filter tabs. */
export async function countByStatus(em: EntityManager, accountId: string): Promise<Record<PostStatus, number>> {
  const rows = await sql<{ status: PostStatus; n: string }[]>(
    em,
    `SELECT status, count(*) AS n FROM posts WHERE account_id = ? AND deleted_at IS NULL GROUP BY status`,
    [accountId],
  );
  const counts: Record<PostStatus, number> = { draft: 0, pending_moderation: 0, published: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/** Requests already spent in the current minute window, per class (limits.ts keeps the rows). */
export async function usedThisMinute(em: EntityManager, accountId: string): Promise<Record<RateClass, number>> {
  const rows = await sql<{ class: RateClass; count: number }[]>(
    em,
    `SELECT class, count FROM rate_windows
      WHERE account_id = ? AND window_start = to_timestamp(floor(extract(epoch FROM clock_timestamp()) / 60) * 60)`,
    [accountId],
  );
  const used = Object.fromEntries(RATE_CLASS_NAMES.map((cls) => [cls, 0])) as Record<RateClass, number>;
  for (const r of rows) if (r.class in used) used[r.class] = Number(r.count);
  return used;
}

/** Handles of the authors of the given accounts, for the moderation queue. */
export async function handlesOf(em: EntityManager, accountIds: string[]): Promise<Map<string, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await sql<{ id: string; handle: string }[]>(
    em,
    `SELECT id, handle FROM accounts WHERE id IN (${accountIds.map(() => '?').join(', ')})`,
    accountIds,
  );
  return new Map(rows.map((r) => [r.id, r.handle]));
}

/**
 * The Markdown each waiting article was submitted with (kept by the trigger of
 * Migration20261126200000_submitted_markdown), for the moderation queue's list of what the
 * sanitizer removed; an article submitted before it was kept is absent.
 */
export async function submittedMarkdownOf(em: EntityManager, postIds: string[]): Promise<Map<string, string>> {
  if (postIds.length === 0) return new Map();
  const rows = await sql<{ id: string; markdown: string }[]>(
    em,
    `SELECT id, submitted_markdown AS markdown FROM posts
      WHERE id IN (${postIds.map(() => '?').join(', ')}) AND submitted_markdown IS NOT NULL`,
    postIds,
  );
  return new Map(rows.map((r) => [r.id, r.markdown]));
}
