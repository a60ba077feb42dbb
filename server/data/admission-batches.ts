/**
 * Admitted reads of one token and one shape travel together: while a statement of theirs is
 * out, the next requests wait and then go as one batch (admitted-reads.ts runs a batch in one
 * statement). Nothing waits on a timer: a request that finds its lane idle waits only for the
 * end of the event loop's current turn (so the requests parsed in that turn go with it), and
 * under load a batch is whatever came in during one round trip. This is group commit for the
 * rate window: the window row is locked by every charge anyway, so one token's statements
 * would queue on it one after another in PostgreSQL; here they queue in the process instead,
 * and PostgreSQL pays for one round trip, one token lookup and one charge per batch.
 *
 * One lane per (statement runner, statement, token digest): one statement out per lane, at
 * most MAX_BATCH requests in it, so one caller's reads take one pool connection at a time and
 * never delay another token's lane. A batch that fails on one request's value (a data
 * exception, SQLSTATE class 22) is run again one request at a time, so only that one fails; any
 * other failure (PostgreSQL down, a timeout) is every request's, as it would have been alone.
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

interface Waiting {
  values: readonly unknown[];
  resolve: (admitted: Admitted<unknown> | null) => void;
  reject: (err: unknown) => void;
}

interface Lane {
  sending: boolean;
  waiting: Waiting[];
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
  if (!lane) lanes.set(key, (lane = { sending: false, waiting: [] }));
  const admitted = new Promise<Admitted<unknown> | null>((resolve, reject) => {
    lane.waiting.push({ values: read.values, resolve, reject });
  });
  if (!lane.sending) {
    lane.sending = true;
    setImmediate(() => send(db, lanes, key, lane, read.statement, digest));
  }
  return admitted as Promise<Admitted<Row> | null>;
}

/** Sends the lane's next batch, and the one after it when it is back; forgets an empty lane. */
function send(
  db: StatementRunner,
  lanes: Map<string, Lane>,
  key: string,
  lane: Lane,
  st: AdmittedStatement,
  digest: Buffer,
): void {
  const batch = lane.waiting.splice(0, MAX_BATCH);
  if (batch.length === 0) {
    lane.sending = false;
    lanes.delete(key);
    return;
  }
  const values = batch.map((w) => w.values);
  matchTokenChargeAndReadBatch(db, digest, st, values).then(
    (results) => {
      send(db, lanes, key, lane, st, digest); // the next batch goes out before this one's answers are built
      batch.forEach((w, i) => w.resolve(results[i]!));
    },
    (err: unknown) => {
      send(db, lanes, key, lane, st, digest);
      if (batch.length > 1 && dataException(err)) {
        for (const w of batch) {
          matchTokenChargeAndReadBatch(db, digest, st, [w.values]).then(([one]) => w.resolve(one!), w.reject);
        }
      } else for (const w of batch) w.reject(err);
    },
  );
}
