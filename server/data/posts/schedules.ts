import { statement, type StatementRunner } from '../../../db/statements';
import { ACCOUNT_COLUMNS, type AccountRow } from '../../model/account';

/**
 * The statements of scheduled publishing (table `publish_schedules`, one schedule per article).
 * Timestamps come back as PostgreSQL's text, like every row of the posts aggregate.
 */

/** A schedule as the console shows it. */
export interface ScheduleRow {
  post_id: string;
  publish_at: string;
  attempt_at: string;
  note: string | null;
  failed: boolean;
}

const SCHEDULE_COLUMNS = 'post_id, publish_at, attempt_at, note, failed';

/** Sets (or moves) the schedule of the author's live article; no row when there is no such article. */
const SET = statement(
  'publish_schedule_set',
  `INSERT INTO publish_schedules (post_id, account_id, publish_at, attempt_at)
   SELECT id, account_id, $3, $3 FROM posts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
   ON CONFLICT (post_id) DO UPDATE SET publish_at = excluded.publish_at, attempt_at = excluded.attempt_at,
                                       note = NULL, failed = false, created_at = now()
   RETURNING ${SCHEDULE_COLUMNS}`,
);

export async function setSchedule(
  db: StatementRunner,
  accountId: string,
  postId: string,
  at: Date,
): Promise<ScheduleRow | null> {
  const [row] = await db.run<ScheduleRow>(SET, [postId, accountId, at.toISOString()]);
  return row ?? null;
}

const CANCEL = statement(
  'publish_schedule_cancel',
  `DELETE FROM publish_schedules WHERE post_id = $1 AND account_id = $2 RETURNING post_id`,
);

/** Removes the author's schedule of this article; false when there was none. */
export async function cancelSchedule(db: StatementRunner, accountId: string, postId: string): Promise<boolean> {
  return (await db.run(CANCEL, [postId, accountId])).length > 0;
}

const OF_POST = statement(
  'publish_schedule_of_post',
  `SELECT ${SCHEDULE_COLUMNS} FROM publish_schedules WHERE post_id = $1 AND account_id = $2`,
);

export async function readSchedule(
  db: StatementRunner,
  accountId: string,
  postId: string,
): Promise<ScheduleRow | null> {
  const [row] = await db.run<ScheduleRow>(OF_POST, [postId, accountId]);
  return row ?? null;
}

const OF_ACCOUNT = statement(
  'publish_schedules_of_account',
  `SELECT ${SCHEDULE_COLUMNS} FROM publish_schedules WHERE account_id = $1 AND post_id = ANY($2::uuid[])`,
);

/** The schedules of these articles of the author (a page of the console's list). */
export async function readSchedules(db: StatementRunner, accountId: string, postIds: string[]): Promise<ScheduleRow[]> {
  if (postIds.length === 0) return [];
  return db.run<ScheduleRow>(OF_ACCOUNT, [accountId, postIds]);
}

const ANY_DUE = statement(
  'publish_schedule_any_due',
  `SELECT EXISTS (SELECT 1 FROM publish_schedules WHERE attempt_at <= now() AND NOT failed) AS due`,
);

/** Whether any schedule is due: one plain read, so an instance with nothing to do opens no transaction. */
export async function anyScheduleDue(db: StatementRunner): Promise<boolean> {
  const [row] = await db.run<{ due: boolean }>(ANY_DUE, []);
  return row?.due ?? false;
}

/** A due schedule, claimed, with its author as the publish rules need them. */
export type DueSchedule = ScheduleRow & { account: AccountRow & { deleted: boolean } };

/**
 * The next due schedule, locked for the claiming transaction; one that another instance holds
 * is skipped (it is that instance's), so no two instances ever work on one article.
 */
const CLAIM = statement(
  'publish_schedule_claim',
  `SELECT s.post_id, s.publish_at, s.attempt_at, s.note, s.failed, row_to_json(acc) AS account
     FROM publish_schedules s
     JOIN LATERAL (SELECT ${ACCOUNT_COLUMNS}, a.deleted_at IS NOT NULL AS deleted FROM accounts a WHERE a.id = s.account_id) acc ON true
    WHERE s.attempt_at <= now() AND NOT s.failed
    ORDER BY s.attempt_at
    LIMIT 1
      FOR UPDATE OF s SKIP LOCKED`,
);

export async function claimDueSchedule(tx: StatementRunner): Promise<DueSchedule | null> {
  const [row] = await tx.run<DueSchedule>(CLAIM, []);
  return row ?? null;
}

const DONE = statement('publish_schedule_done', `DELETE FROM publish_schedules WHERE post_id = $1`);

/** The schedule has published its article (in the claiming transaction). */
export async function finishSchedule(tx: StatementRunner, postId: string): Promise<void> {
  await tx.run(DONE, [postId]);
}

const HOLD = statement(
  'publish_schedule_hold',
  `UPDATE publish_schedules SET attempt_at = $2, note = $3, failed = $4 WHERE post_id = $1`,
);

/** The attempt did not publish: try again at `retryAt`, or never (`retryAt` null), saying why. */
export async function holdSchedule(
  tx: StatementRunner,
  postId: string,
  note: string,
  retryAt: Date | null,
): Promise<void> {
  await tx.run(HOLD, [postId, (retryAt ?? new Date()).toISOString(), note, retryAt === null]);
}
