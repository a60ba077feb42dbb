import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { countPostsByStatus } from '../data/posts/reads';
import type { PostStatus } from '../data/posts/rows';
import type { RateClass } from '../model/rate-classes';
import { spentThisMinute } from '../services/limits';

/** Console-only reads that have no REST counterpart (and so no service function). */

/** Live articles per status, for the filter tabs. */
export function countByStatus(db: StatementRunner, accountId: string): Promise<Record<PostStatus, number>> {
  return countPostsByStatus(db, accountId);
}

/** Requests already spent in the current minute window, per class (the account page). */
export function usedThisMinute(db: StatementRunner, accountId: string): Promise<Record<RateClass, number>> {
  return spentThisMinute(db, accountId);
}
