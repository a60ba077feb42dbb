import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { readerDayRows, type ReaderDay } from '../data/readers';

export type { ReaderDay };

/**
 * The last `days` UTC days up to today, oldest first, days without readers as zeros. The
 * article must be the account's own (the editor has checked; the statement says it again).
 */
export function recentReaderDays(
  db: StatementRunner,
  accountId: string,
  postId: string,
  days = 30,
): Promise<ReaderDay[]> {
  return readerDayRows(db, accountId, postId, days);
}
