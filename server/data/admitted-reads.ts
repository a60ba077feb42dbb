/**
 * Reads admitted in the statement that admits their caller (GET /me, GET /posts, GET /posts/{id},
 * and PATCH /posts/{id}'s read of the article it edits): the access aggregate's token match and
 * the limits aggregate's window charge, with the read.
 */
import { statement, type Statement, type StatementRunner } from '../../db/statements';
import { LIMITS, RATE_CLASSES, type RateClass } from '../model/rate-classes';
import { matchOf, TOKEN_MATCH, type MatchRow, type TokenMatch } from './access';
import { mediaBytesTodayQuery, windowUpsert, type WindowRow } from './limits';

/**
 * A read admitted in the statement that admits its caller: the token lookup, the account's
 * window and the read, in one round trip (an authenticated read would otherwise pay two). One
 * statement admits a batch of requests of the same token and shape (admission-batches.ts): it
 * charges one unit per request and runs the read once per request, so under load one statement
 * does the work of many (each round trip costs PostgreSQL about as much as the read itself).
 *
 * `read` names the caller's account as `ADMITTED_ACCOUNT` and its own parameters `$3`, `$4`, …
 * as if it ran alone; `params` gives their SQL types in that order. The statement takes `$1` the
 * digest, `$2` the rate class, `$3` the batch's request numbers (1…k) and, for each parameter of
 * the read, an array of the requests' values: each request reads with its own. Request i is the
 * window's unit `count - k + i` (`count` after the charge), so the batch is numbered exactly as
 * k statements one after the other would be, and its read runs only if that unit is within the
 * limit: a refused request reads nothing.
 *
 * Rows come ordered by request (`adm_i`) and by the read's own order (`adm_n`, from 1); a
 * request whose read found nothing or did not run has one row without `adm_n`. The admission is
 * on the first row only (under `adm_` names, so no read column can shadow it): PostgreSQL would
 * otherwise print and pg parse it again for every article of every page (the secret's digest
 * among them). No row at all: no live token.
 *
 * `generate_subscripts` numbers the requests because, unlike `unnest` or `generate_series`, the
 * planner gives it the same row estimate whatever the batch's size: the generic plan is never
 * dearer than a custom one, so PostgreSQL plans the statement once per connection instead of
 * again for every small batch (measured: planning the statement costs more than running it).
 */
export const ADMITTED_ACCOUNT = 'hit.id';

const ADMISSION_NAMES = [
  'token_id',
  'secret_hash',
  'stale_use',
  'id',
  'handle',
  'is_admin',
  'is_moderated',
  ...LIMITS.map((l) => l.name),
];

/** An admitted read's statement, for the one rate class whose limit it checks. */
export type AdmittedStatement = Statement & { readonly cls: RateClass; readonly params: readonly string[] };

/** The batch's size in the statement: the length of `$3`, its request numbers. */
const BATCH_SIZE = 'cardinality($3::int[])';

/**
 * `params`: the SQL types of the read's own parameters (`$3` first). `rows`: the parameter
 * (`$n`) that says how many rows of the read to return, for a read whose own LIMIT is a constant
 * ceiling: it becomes a LIMIT outside the read. A LIMIT taken from a parameter inside the read
 * makes PostgreSQL's generic plan guess a tenth of the table, so it planned the whole statement
 * again on every call (seen as half again the PostgreSQL CPU of a page); outside, under the
 * constant ceiling, it stops the scan just as early and keeps one plan. (A row-number condition
 * would not: comparing with the request's own value, a lateral reference, PostgreSQL cannot stop
 * the window early, and it read the whole ceiling for every page.)
 */
export function admittedStatement(
  name: string,
  cls: RateClass,
  read: string,
  opts: { params?: readonly string[]; rows?: string } = {},
): AdmittedStatement {
  const params = opts.params ?? [];
  // The read's `$n` becomes this request's element of the array sent as `$(n+1)`.
  const perRequest = (sql: string) =>
    sql.replace(/\$(\d+)(?!\d)/g, (whole, digits: string) => {
      const n = Number(digits);
      if (n < 3) throw new Error(`${name}: $${n} is the admission's, not the read's`);
      const type = params[n - 3];
      if (!type) throw new Error(`${name}: $${n} has no type in params`);
      return `($${n + 1}::${type}[])[req.adm_i]`;
    });
  const first = (column: string, as: string) =>
    `CASE WHEN req.adm_i = 1 AND (r.adm_n IS NULL OR r.adm_n = 1) THEN ${column} END AS ${as}`;
  const admission = [
    ...ADMISSION_NAMES.map((n) => first(`hit.${n}`, `adm_${n}`)),
    first('charged.count', 'adm_count'),
    first('charged.window_start', 'adm_window_start'),
    first('charged.now', 'adm_now'),
  ];
  const st = statement(
    name,
    `WITH hit AS (${TOKEN_MATCH}),
          charged AS (${windowUpsert('hit.id', 'FROM hit', BATCH_SIZE)}),
          req AS (SELECT adm_i FROM generate_subscripts($3::int[], 1) AS adm_i)
     SELECT ${admission.join(', ')}, req.adm_i, r.*
       FROM hit LEFT JOIN charged ON true CROSS JOIN req
       LEFT JOIN LATERAL (
         SELECT * FROM (
           SELECT row_number() OVER () AS adm_n, q.* FROM (${perRequest(read)}) q
            WHERE charged.count - ${BATCH_SIZE} + req.adm_i <= hit.${RATE_CLASSES[cls].limit}
         ) numbered ${opts.rows ? `LIMIT ${perRequest(opts.rows)}` : ''}
       ) r ON true
      ORDER BY req.adm_i, r.adm_n`,
  );
  return { ...st, cls, params };
}

/** A read to run admitted: its statement (`admittedStatement`) and its own parameters. */
export interface AdmittedRead<Row> {
  statement: AdmittedStatement;
  values: unknown[];
  /** Only carries the row type. */
  readonly row?: Row;
}

/** What one admitted request gets: its token's match, its own unit of the window, its rows. */
export interface Admitted<Row> {
  match: TokenMatch;
  window: WindowRow;
  rows: Row[];
}

/** The statement's parameters after `$1` and `$2` for a batch of requests' own `values`. */
export function batchParameters(st: AdmittedStatement, batch: readonly (readonly unknown[])[]): unknown[] {
  for (const values of batch) {
    if (values.length !== st.params.length) throw new Error(`${st.name} takes ${st.params.length} values`);
  }
  return [batch.map((_, i) => i + 1), ...st.params.map((_, p) => batch.map((values) => values[p]))];
}

type AdmissionRow = { adm_i: number; adm_n: string | null; adm_count: number | null } & Record<string, unknown>;

/**
 * Runs one statement for a batch of requests of the same token: what each got, in order; all
 * null when the token is not live. `db.run` failing fails them all.
 */
export async function matchTokenChargeAndReadBatch(
  db: StatementRunner,
  digest: Buffer,
  st: AdmittedStatement,
  batch: readonly (readonly unknown[])[],
): Promise<(Admitted<unknown> | null)[]> {
  const rows = await db.run<AdmissionRow>(st, [digest, st.cls, ...batchParameters(st, batch)]);
  const head = rows[0];
  if (!head || head.adm_count == null) return batch.map(() => null);
  const plain: Record<string, unknown> = {};
  for (const name of ADMISSION_NAMES) plain[name] = head[`adm_${name}`];
  const match = matchOf(plain as MatchRow);
  const perRequest: unknown[][] = batch.map(() => []);
  for (const row of rows) if (row.adm_n !== null) perRequest[row.adm_i - 1]!.push(row);
  const last = head.adm_count - batch.length;
  return perRequest.map((found, i) => ({
    match,
    window: { count: last + i + 1, window_start: head.adm_window_start as string, now: head.adm_now as string },
    rows: found,
  }));
}

const ADMITTED_MEDIA_BYTES_TODAY = admittedStatement(
  'admitted_media_bytes_today',
  'read',
  mediaBytesTodayQuery(ADMITTED_ACCOUNT),
);

/** Today's media bytes of the caller admitted by the same statement (GET /me). */
export const admittedMediaBytesToday = (): AdmittedRead<{ bytes: string }> => ({
  statement: ADMITTED_MEDIA_BYTES_TODAY,
  values: [],
});
