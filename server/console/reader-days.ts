import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { readerDayRows } from '../data/readers';
import type { ReaderDay } from '../model/readers';

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
