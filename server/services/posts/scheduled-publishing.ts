import type { StatementRunner } from '../../../db/statements';
import {
  anyScheduleDue,
  cancelSchedule,
  claimDueSchedule,
  finishSchedule,
  holdSchedule,
  readSchedule,
  readSchedules,
  setSchedule,
  type ScheduleRow,
} from '../../data/posts/schedules';
import { chargeWindowRow } from '../../admission/window-charge';
import { invalid, isDomainError, notFound } from '../../foundation/errors';
import { accountOf, limitFor } from '../../model/account';
import { movePost } from './post-publishing';
import { publish } from './publication';
import { publicPathOf, type AnnouncePublicChange } from './public-changes';

/**
 * Scheduled publishing (the console's; the REST contract is unchanged: a scheduled article is a
 * draft, or keeps its published version, until its time comes). At its time, an instance
 * publishes the working version as `POST /posts/{id}/publish` would: the same state machine
 * (publication.ts) with the account's moderation as it is then, and one unit of the account's
 * publish window charged then.
 *
 * Exactly once across instances: each due schedule is claimed `FOR UPDATE SKIP LOCKED` in a
 * transaction that publishes the article and deletes the schedule, so two instances never work
 * on one schedule and a crash half-way leaves it as it was (the next instance takes it). A
 * schedule is a row, not a timer: it survives restarts, and any instance may run it.
 *
 * When an attempt cannot publish, the schedule says why: the publish limit spent for this minute
 * holds it until the next minute (it publishes then); a refusal of the rules (the article is
 * empty, waits for moderation, was deleted) ends it, until the writer schedules it again.
 */

/** The farthest ahead a schedule may be set. */
const SCHEDULE_HORIZON_DAYS = 366;

export interface ScheduleView {
  publishAt: string;
  /** Why the last attempt did not publish (held or failed), in words. */
  note: string | null;
  /** No further attempt will be made: the writer must schedule again. */
  failed: boolean;
}

const viewOf = (row: ScheduleRow): ScheduleView => ({
  publishAt: new Date(row.publish_at).toISOString(),
  note: row.note,
  failed: row.failed,
});

/** Schedules (or moves) the publication of the author's article at `at`, which must be ahead of `now`. */
export async function schedulePublish(
  db: StatementRunner,
  accountId: string,
  postId: string,
  at: Date,
  now = new Date(),
): Promise<ScheduleView> {
  if (Number.isNaN(at.getTime())) throw invalid('publish_at: not a date and time');
  if (at.getTime() <= now.getTime()) throw invalid('publish_at: the time has passed: choose a time ahead of now');
  if (at.getTime() - now.getTime() > SCHEDULE_HORIZON_DAYS * 86_400_000)
    throw invalid(`publish_at: at most ${SCHEDULE_HORIZON_DAYS} days ahead`);
  const row = await setSchedule(db, accountId, postId, at);
  if (!row) throw notFound('Article not found');
  return viewOf(row);
}

/** Cancels the schedule; false when the article had none. */
export function cancelScheduledPublish(db: StatementRunner, accountId: string, postId: string): Promise<boolean> {
  return cancelSchedule(db, accountId, postId);
}

/** The schedules of these articles of the author, by article id (a page of the console's list). */
export async function schedulesOf(
  db: StatementRunner,
  accountId: string,
  postIds: string[],
): Promise<Map<string, ScheduleView>> {
  return new Map((await readSchedules(db, accountId, postIds)).map((row) => [row.post_id, viewOf(row)]));
}

export async function scheduleOf(db: StatementRunner, accountId: string, postId: string): Promise<ScheduleView | null> {
  const row = await readSchedule(db, accountId, postId);
  return row ? viewOf(row) : null;
}

/** What one claimed schedule came to. */
export type ScheduleOutcome =
  | { postId: string; outcome: 'published' | 'sent_to_moderation' | 'unchanged' }
  | { postId: string; outcome: 'held' | 'failed'; note: string };

const nextMinute = (now: Date) => new Date((Math.floor(now.getTime() / 60_000) + 1) * 60_000);
const minuteOf = (d: Date) => d.toISOString().slice(11, 16);

/**
 * Publishes every schedule due now, one transaction each, until none is due (or `max` were
 * handled); what each came to, in order. Public changes are announced after each commit. A
 * pass that finds nothing due is one plain read: every instance makes one every few seconds,
 * and a transaction each time held a pooler's server connection for nothing (and, through
 * PgBouncer, kept an instance from recovering after PostgreSQL restarted under load:
 * tests/deployment).
 */
export async function publishDueArticles(
  ctx: { db: StatementRunner; announce: AnnouncePublicChange },
  max = 100,
): Promise<ScheduleOutcome[]> {
  const outcomes: ScheduleOutcome[] = [];
  if (!(await anyScheduleDue(ctx.db))) return outcomes;
  while (outcomes.length < max) {
    const handled = await ctx.db.transaction(async (tx) => {
      const due = await claimDueSchedule(tx);
      if (!due) return null;
      return attempt(tx, due.post_id, due.account);
    });
    if (!handled) break;
    if (handled.announce) ctx.announce(handled.announce);
    outcomes.push(handled.outcome);
  }
  return outcomes;
}

async function attempt(
  tx: StatementRunner,
  postId: string,
  accountRow: Parameters<typeof accountOf>[0] & { deleted: boolean },
): Promise<{ outcome: ScheduleOutcome; announce?: (string | null)[] }> {
  const now = new Date();
  const end = async (note: string) => {
    await holdSchedule(tx, postId, note, null);
    return { outcome: { postId, outcome: 'failed', note } as const };
  };
  if (accountRow.deleted) return end('Not published: the account was deleted.');
  const account = accountOf(accountRow);
  const window = await chargeWindowRow(tx, account.id, 'publish');
  const limit = limitFor(account, 'publish');
  if (window.count > limit) {
    const retry = nextMinute(now);
    const note = `Waiting: the publish limit (${limit} a minute) was reached at ${minuteOf(now)} UTC; it publishes at ${minuteOf(retry)} UTC instead.`;
    await holdSchedule(tx, postId, note, retry);
    return { outcome: { postId, outcome: 'held', note } };
  }
  let moved;
  try {
    moved = await movePost(
      tx,
      postId,
      account.id,
      (state, current) =>
        publish(state, { version: 'working', empty: current.empty }, { moderated: account.isModerated, now }),
      { missing: () => notFound('Article not found') },
    );
  } catch (err) {
    if (!isDomainError(err)) throw err;
    const why = err.kind === 'not_found' ? 'the article was deleted' : err.message.replace(/^[a-z_]+: /, '');
    return end(`Not published: ${why}.`);
  }
  await finishSchedule(tx, postId);
  const { row, before, changed } = moved;
  if (!changed) return { outcome: { postId, outcome: 'unchanged' } };
  if (row.status !== 'published') return { outcome: { postId, outcome: 'sent_to_moderation' } };
  return {
    outcome: { postId, outcome: 'published' },
    announce: [before, publicPathOf(row.published_slug, row.public_id)],
  };
}
