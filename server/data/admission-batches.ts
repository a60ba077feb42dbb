/**
 * Admitted reads of one token and one shape travel together: while a statement of theirs is
 * out, the next requests wait and then go as one batch (admitted-reads.ts runs a batch in one
 * statement). No request is held back to fill a batch: one that finds its lane idle waits only
 * for the end of the event loop's current turn (so the requests parsed in that turn go with it),
 * and under load a batch is whatever came in during one round trip. This is group commit for the
 * rate window: the window row is locked by every charge anyway, so one token's statements
 * would queue on it one after another in PostgreSQL; here they queue in the process instead,
 * and PostgreSQL pays for one round trip, one token lookup and one charge per batch.
 *
 * One lane per (statement runner, statement, token digest): one statement out per lane, at
 * most MAX_BATCH requests in it, so one caller's reads take one pool connection at a time and
 * never delay another token's lane. A statement that does not come back within STALL_MS stops
 * holding the lane: what waits behind it goes out on its own statement, as it would unbatched
 * (the only timer here, armed while a statement is out). A batch that fails on one request's
 * value (a data exception, SQLSTATE class 22) is run again one request at a time, so only that
 * one fails; any other failure (PostgreSQL down, a timeout) is every request's, as it would have
 * been alone.
 */
import type { StatementRunner } from '../../db/statements';
import {
  matchTokenChargeAndReadBatch,
  type Admitted,
  type AdmittedRead,
  type AdmittedStatement,
} from './admitted-reads';

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

interface Waiting {
  values: readonly unknown[];
  resolve: (admitted: Admitted<unknown> | null) => void;
  reject: (err: unknown) => void;
}

interface Lane {
  /** Statements of the lane out now, and when the last one went. */
  out: number;
  sentAt: number;
  waiting: Waiting[];
  /** A send is due at the end of this turn, or once the statement out counts as stalled. */
  scheduled: boolean;
  timer: NodeJS.Timeout | null;
}

const lanesOf = new WeakMap<StatementRunner, Map<string, Lane>>();

const dataException = (err: unknown) => /^22/.test(String((err as { code?: unknown } | null)?.code ?? ''));

/**
 * The token of `digest` matched, one unit of its window charged and `read` run for its account,
 * in the statement of a batch; null when the token is not live.
 */
export function matchTokenChargeAndRead<Row>(
  db: StatementRunner,
  digest: Buffer,
  read: AdmittedRead<Row>,
): Promise<Admitted<Row> | null> {
  let lanes = lanesOf.get(db);
  if (!lanes) lanesOf.set(db, (lanes = new Map()));
  const key = `${read.statement.name}\u0000${digest.toString('base64')}`;
  let lane = lanes.get(key);
  if (!lane) lanes.set(key, (lane = { out: 0, sentAt: 0, waiting: [], scheduled: false, timer: null }));
  const admitted = new Promise<Admitted<unknown> | null>((resolve, reject) => {
    lane.waiting.push({ values: read.values, resolve, reject });
  });
  schedule({ db, lanes, key, lane, st: read.statement, digest });
  return admitted as Promise<Admitted<Row> | null>;
}

interface LaneRef {
  db: StatementRunner;
  lanes: Map<string, Lane>;
  key: string;
  lane: Lane;
  st: AdmittedStatement;
  digest: Buffer;
}

/** Sends the waiting requests at the end of this turn if nothing is out, or once what is out has stalled. */
function schedule(ref: LaneRef): void {
  const { lane } = ref;
  if (lane.scheduled || lane.waiting.length === 0) return;
  const stalledIn = lane.out === 0 ? 0 : STALL_MS - (Date.now() - lane.sentAt);
  if (stalledIn <= 0) {
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      send(ref);
    });
  } else if (!lane.timer) {
    lane.timer = setTimeout(() => {
      lane.timer = null;
      schedule(ref);
    }, stalledIn);
  }
}

/** Sends the lane's next batch; when it is back, the batch waiting behind it goes at once. */
function send(ref: LaneRef): void {
  const { db, lanes, key, lane, st, digest } = ref;
  const batch = lane.waiting.splice(0, MAX_BATCH);
  if (batch.length === 0) {
    if (lane.out === 0 && !lane.timer && lanes.get(key) === lane) lanes.delete(key);
    return;
  }
  lane.out++;
  lane.sentAt = Date.now();
  const next = () => {
    lane.out--;
    // A stall timer armed behind this statement has nothing left to wait for: what waits goes
    // now. Left armed, it would keep an idle lane in the map after its last request (one lane
    // per token digest, so one per unknown token a caller sends two at a time).
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = null;
    send(ref); // the next batch goes out before this one's answers are built
    schedule(ref); // past MAX_BATCH, the rest wait behind it with a stall timer of their own
  };
  matchTokenChargeAndReadBatch(
    db,
    digest,
    st,
    batch.map((w) => w.values),
  ).then(
    (results) => {
      next();
      batch.forEach((w, i) => w.resolve(results[i]!));
    },
    (err: unknown) => {
      next();
      if (batch.length > 1 && dataException(err)) {
        for (const w of batch) {
          matchTokenChargeAndReadBatch(db, digest, st, [w.values]).then(([one]) => w.resolve(one!), w.reject);
        }
      } else for (const w of batch) w.reject(err);
    },
  );
}
