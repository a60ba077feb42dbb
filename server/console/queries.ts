import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { countPostsByStatus } from '../data/posts/reads';
import type { PostStatus } from '../model/post';

/**
 * Console-only reads that have no REST counterpart (and so no service function). They only
 * hand the call on: app/ may not import server/data (eslint.config.mjs `FLOORS`), so its pages
 * reach these reads through here.
 */

/** Live articles per status, for the filter tabs. */
export function countByStatus(db: StatementRunner, accountId: string): Promise<Record<PostStatus, number>> {
  return countPostsByStatus(db, accountId);
}
