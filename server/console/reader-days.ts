import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';

/** One UTC day of an article's reader counts (opens, reads, full reads), for the editor's chart. */
export interface ReaderDay {
  /** `YYYY-MM-DD`. */
  day: string;
  opens: number;
  reads: number;
  completes: number;
}

/**
 * The last `days` UTC days up to today, oldest first, days without readers as zeros. The
 * article must be the account's own (the editor has checked; the join says it again).
 */
export async function recentReaderDays(
  em: EntityManager,
  accountId: string,
  postId: string,
  days = 30,
): Promise<ReaderDay[]> {
  const rows = await sql<ReaderDay[]>(
    em,
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(r.opens, 0) AS opens, coalesce(r.reads, 0) AS reads,
            coalesce(r.completes, 0) AS completes
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - (?::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN reader_daily r ON r.day = d.day::date
        AND r.post_id = (SELECT id FROM posts WHERE id = ? AND account_id = ?)
      ORDER BY d.day`,
    [days, postId, accountId],
  );
  return rows.map((r) => ({
    day: r.day,
    opens: Number(r.opens),
    reads: Number(r.reads),
    completes: Number(r.completes),
  }));
}
