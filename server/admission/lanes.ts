import type { StatementRunner } from '../../db/statements';
import { admissionBatches } from '../foundation/metrics';
import {
  activeContext,
  inSpan,
  linkTo,
  spanOf,
  TRACING,
  type Context,
  type Link,
  type SpanOptions,
} from '../foundation/tracing';
import {
  runAdmitted,
  type Admitted,
  type AdmittedRead,
  type AdmittedStatement,
  type Request,
} from './admitted-statement';

/**
 * Admitted reads of one shape travel together, whatever their tokens: while a statement of
 * theirs is out, the next requests wait and then go as one batch (admitted-statement.ts runs it
 * in one statement). This is group commit for the admission: PostgreSQL pays one round trip and
 * one plan's execution for a whole batch instead of one per request, which is what makes a
 * platform of many integrations cheap, not only one integration's burst.
 *
 * No request is held back to fill a batch: one that finds its lane idle waits only for the end
 * of the event loop's current turn (so the requests parsed in that turn go with it), and under
 * load a batch is whatever came in during one round trip. A batch of one runs the lean
 * statement.
 *
 * One lane per (statement runner, statement): one statement out per lane, at most MAX_BATCH
 * requests in it, taken in turn from each token that waits (round robin), so one caller's burst
 * takes its share of each batch and never holds another caller's request back by more than a
 * statement. A statement that does not come back within STALL_MS stops holding the lane: what
 * waits behind it goes out on its own statement (the only timer here, armed while a statement is
 * out). A batch that fails on one request's value (a data exception, SQLSTATE class 22) is run
 * again one request at a time, so only that one fails; any other failure (PostgreSQL down, a
 * timeout) is every request's, as it would have been alone.
 */

/** The most requests one statement admits: bounds its rows (a page reads at most 101) and its time. */
const MAX_BATCH = 32;

/**
 * A statement out longer than this no longer holds its lane's next requests back: they go out on
 * a statement of their own. Under load a statement is back within a few milliseconds; one that is
 * not is waiting on PostgreSQL (down, restarting, a pooler queueing it), and a request queued
 * behind it would wait for its failure and then for its own (twice the connection timeout)
 * instead of failing on its own, as it would unbatched.
 */
const STALL_MS = 50;

interface Waiting extends Request {
  resolve: (admitted: Admitted<unknown> | null) => void;
  reject: (err: unknown) => void;
  /** Traces on: the request's context, whose span is its `admission` (set only then). */
  trace?: Context;
}

interface Lane {
  db: StatementRunner;
  st: AdmittedStatement;
  /** Statements of the lane out now, and when the last one went. */
  out: number;
  sentAt: number;
  /** Waiting requests by token digest, in the order their tokens came: the round robin's turns. */
  waiting: Map<string, Waiting[]>;
  /** A send is due at the end of this turn, or once the statement out counts as stalled. */
  scheduled: boolean;
  timer: NodeJS.Timeout | null;
}

const lanesOf = new WeakMap<StatementRunner, Map<AdmittedStatement, Lane>>();

const dataException = (err: unknown) => /^22/.test(String((err as { code?: unknown } | null)?.code ?? ''));

/**
 * The caller of the token `digest` admitted to one unit of its window and `read` run for its
 * account, in the statement of a batch; null when the token is not live.
 */
export function admitInLane<Row>(
  db: StatementRunner,
  digest: Buffer,
  read: AdmittedRead<Row>,
): Promise<Admitted<Row> | null> {
  let lanes = lanesOf.get(db);
  if (!lanes) lanesOf.set(db, (lanes = new Map()));
  let lane = lanes.get(read.statement);
  if (!lane) {
    lane = { db, st: read.statement, out: 0, sentAt: 0, waiting: new Map(), scheduled: false, timer: null };
    lanes.set(read.statement, lane);
  }
  const key = digest.toString('base64');
  const admitted = new Promise<Admitted<unknown> | null>((resolve, reject) => {
    const queue = lane.waiting.get(key);
    const request: Waiting = { digest, values: read.values, resolve, reject };
    if (TRACING) request.trace = activeContext();
    if (queue) queue.push(request);
    else lane.waiting.set(key, [request]);
  });
  schedule(lane);
  return admitted as Promise<Admitted<Row> | null>;
}

/** Sends the waiting requests at the end of this turn if nothing is out, or once what is out has stalled. */
function schedule(lane: Lane): void {
  if (lane.scheduled || lane.waiting.size === 0) return;
  const stalledIn = lane.out === 0 ? 0 : STALL_MS - (Date.now() - lane.sentAt);
  if (stalledIn <= 0) {
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      send(lane);
    });
  } else if (!lane.timer) {
    lane.timer = setTimeout(() => {
      lane.timer = null;
      schedule(lane);
    }, stalledIn);
  }
}

/** Up to MAX_BATCH waiting requests, one from each token in turn; a token left waiting goes to the back. */
function takeBatch(lane: Lane): Waiting[] {
  const batch: Waiting[] = [];
  while (batch.length < MAX_BATCH && lane.waiting.size > 0) {
    for (const [key, queue] of lane.waiting) {
      batch.push(queue.shift()!);
      lane.waiting.delete(key);
      if (queue.length > 0) lane.waiting.set(key, queue);
      if (batch.length === MAX_BATCH) break;
    }
  }
  return batch;
}

/** Sends the lane's next batch; when it is back, the batch waiting behind it goes at once. */
function send(lane: Lane): void {
  const batch = takeBatch(lane);
  if (batch.length === 0) return;
  lane.out++;
  lane.sentAt = Date.now();
  admissionBatches.observe(batch.length);
  const next = () => {
    lane.out--;
    // A stall timer armed behind this statement has nothing left to wait for: what waits goes now.
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = null;
    send(lane); // the next batch goes out before this one's answers are built
    schedule(lane); // past MAX_BATCH, the rest wait behind it with a stall timer of their own
  };
  (TRACING ? inBatchSpan(lane, batch) : runAdmitted(lane.db, lane.st, batch)).then(
    (results) => {
      next();
      batch.forEach((w, i) => w.resolve(results[i]!));
    },
    (err: unknown) => {
      next();
      if (batch.length > 1 && dataException(err)) {
        for (const w of batch) alone(lane, w).then(([one]) => w.resolve(one!), w.reject);
      } else for (const w of batch) w.reject(err);
    },
  );
}

/** A request of a failed batch again on its own, under its own admission when traces are on. */
function alone(lane: Lane, w: Waiting) {
  return TRACING && w.trace
    ? inSpan('admission.batch', batchSpan(lane, 1, w.trace, []), () => runAdmitted(lane.db, lane.st, [w]))
    : runAdmitted(lane.db, lane.st, [w]);
}

/**
 * The batch's statement in an `admission.batch` span (traces on): a child of the first request's
 * `admission`, linked to the others'; each request's `admission` notes the batch's size and
 * links to it, so every request's trace shows the batch it joined.
 */
function inBatchSpan(lane: Lane, batch: Waiting[]) {
  const links: Link[] = [];
  for (const w of batch.slice(1)) {
    const link = w.trace && linkTo(w.trace);
    if (link) links.push(link);
  }
  return inSpan('admission.batch', batchSpan(lane, batch.length, batch[0]!.trace, links), (span) => {
    const toBatch = { context: span.spanContext() };
    for (const w of batch) {
      const admission = w.trace && spanOf(w.trace);
      admission?.setAttribute('admission.batch.size', batch.length);
      if (w !== batch[0]) admission?.addLink(toBatch);
    }
    return runAdmitted(lane.db, lane.st, batch);
  });
}

const batchSpan = (lane: Lane, size: number, parent: Context | undefined, links: Link[]): SpanOptions => ({
  parent,
  links,
  attributes: { 'admission.statement': lane.st.name, 'admission.batch.size': size },
});
