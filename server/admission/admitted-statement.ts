import { statement, type Statement, type StatementRunner } from '../../db/statements';
import { ACCOUNT_COLUMN_NAMES } from '../model/account';
import { RATE_CLASSES, type RateClass } from '../model/rate-classes';
import { params as named, type Param, type Sql } from './sql';
import { MATCH_COLUMN_NAMES, tokenMatch, trusted, type MatchRow } from './token-match';
import { windowCharge, type WindowRow } from './window-charge';
import type { Authenticated } from '../model/account';

/**
 * A read admitted in the statement that admits its caller (GET /me, GET /posts, GET /posts/{id},
 * and PATCH's read of the article it edits): the token match, the charge of one unit of the
 * account's window and the read, in one round trip. Each declaration gives two statements:
 *
 * - `one`, for a request alone: the token match, the charge and the read with scalar parameters,
 *   as lean as the three plain statements it replaces (and one round trip instead of three);
 * - `batch`, for requests of any tokens that meet (lanes.ts): `$1` holds each request's token
 *   digest, and each parameter of the read one array with every request's value. The statement
 *   matches every token at once, charges each account's window with that account's own number
 *   of requests (in account order, so two batches never deadlock), and numbers each account's
 *   requests `count - k + rank` as k statements one after another would have; a request reads
 *   only if its own unit is within its own account's limit, with its own values and its own
 *   account. Two accounts of a batch never share a unit, a row or a status.
 *
 * Rows come in request order (`adm_i`), each request's in the read's own order. A request whose
 * read found nothing or did not run has one row without `adm_found`, and a request whose token
 * is not live has none. The admission's columns are `adm_` names (no read column can shadow
 * them), read from each request's first row. A read of one row is joined as it comes: a `LATERAL`
 * read can only be joined by a nested loop over the requests, sorted by `adm_i`, so no sort and
 * no row number is needed. A read of many rows (a page, `rows`) is numbered and sorted, and its
 * admission printed on its first row only: PostgreSQL would print and pg parse it for every
 * article of the page. Measured both ways on one connection, alternating (2026-11-28): a page's
 * statement costs 4 % (alone) and 11 % (batch of 8) less with the numbering, a GET /posts/{id}'s
 * 14 % and 11 % more (the row number copies the article's html through a tuplestore).
 *
 * `generate_subscripts` numbers the requests because, unlike `unnest`, the planner gives it the
 * same row estimate whatever the batch's size: the generic plan is never dearer than a custom
 * one, so PostgreSQL plans the statement once per connection. A page's row count (`rows`) is a
 * LIMIT outside the read, whose own LIMIT is a constant ceiling: a LIMIT from a parameter inside
 * made the generic plan guess a tenth of the table, and a row-number cut cannot stop a scan early.
 */
export interface AdmittedStatement {
  readonly name: string;
  /** The rate class whose limit it checks: the route's. */
  readonly cls: RateClass;
  readonly one: Statement;
  readonly batch: Statement;
  /** The read's parameters, in the order of a request's values. */
  readonly params: readonly Param[];
}

/** A read to run admitted: its statement and this request's values, in `params` order. */
export interface AdmittedRead<Row> {
  readonly statement: AdmittedStatement;
  readonly values: readonly unknown[];
  /** Only carries the row type. */
  readonly row?: Row;
}

/** A declared admitted read: `read(values)` is one request of it. */
export interface AdmittedReadOf<Names extends string, Row> extends AdmittedStatement {
  read(values: Record<Names, unknown>): AdmittedRead<Row>;
}

/** The admission's columns on each request's first row. */
const ADMISSION_NAMES = [...MATCH_COLUMN_NAMES, ...ACCOUNT_COLUMN_NAMES];

/**
 * Each admission column's name and its `adm_` name in a row, spelled once: a key made anew per
 * request (`adm_${n}`) is a string V8 must look up in its table of names at every read.
 */
const ADMISSION_COLUMNS = ADMISSION_NAMES.map((n) => [n, `adm_${n}`] as const);

/**
 * Declares an admitted read. `read` writes the read with the parameters of `params` (name → SQL
 * type) and `ADMITTED_ACCOUNT`; `rows` names the parameter that says how many of its rows to
 * return. A request gives a value for every declared name; those the read does not use are
 * not sent. Refused at start-up (module load): a read that does not scope itself to the admitted
 * account, and a `rows` that is not one of its parameters.
 */
export function admittedStatement<Names extends string, Row>(decl: {
  name: string;
  cls: RateClass;
  params?: Record<Names, string>;
  read: (p: Record<Names, Param>) => Sql;
  rows?: NoInfer<Names>;
}): AdmittedReadOf<Names, Row> {
  const p = named(decl.params ?? ({} as Record<Names, string>));
  const read = decl.read(p);
  const rowsParam = decl.rows === undefined ? undefined : p[decl.rows];
  // The statement takes the parameters the read uses (a shape without a filter leaves its out:
  // PostgreSQL cannot type a parameter that nothing uses), in the order they were declared.
  const used = read.params;
  const order = Object.values<Param>(p).filter((x) => used.has(x) || x === rowsParam);
  if (!read.scopedToAccount) {
    throw new Error(`${decl.name}: an admitted read must scope itself to ADMITTED_ACCOUNT`);
  }
  const limit = RATE_CLASSES[decl.cls].limit;
  const position = (param: Param) => {
    const at = order.indexOf(param);
    if (at < 0) throw new Error(`${decl.name}: ${param.name} is not one of its parameters`);
    return 3 + at;
  };
  // A read of many rows (a page) numbers them, so the admission is printed on the first only.
  const many = rowsParam !== undefined;
  const render = (as: { param(p: Param): string; account: string; caller: string; unit: string }) => {
    const found = `SELECT true AS adm_found, ${many ? 'row_number() OVER () AS adm_n, ' : ''}q.*
                     FROM (${read.render(as)}) q WHERE ${as.unit} <= ${as.caller}.${limit}`;
    return many ? `SELECT * FROM (${found}) found LIMIT ${as.param(rowsParam)}` : found;
  };
  const firstOnly = (column: string) => (many ? `CASE WHEN r.adm_n IS NULL OR r.adm_n = 1 THEN ${column} END` : column);
  const admission = (caller: string, unit: string, window: string) =>
    [
      ...ADMISSION_NAMES.map((n) => `${firstOnly(`${caller}.${n}`)} AS adm_${n}`),
      `${firstOnly(unit)} AS adm_unit`,
      `${firstOnly(`${window}.window_start`)} AS adm_window_start`,
      `${firstOnly(`${window}.now`)} AS adm_now`,
    ].join(', ');

  const one = statement(
    decl.name,
    `WITH hit AS (${tokenMatch('t.secret_hash = $1')}),
          charged AS (${windowCharge('SELECT id AS account_id, 1 AS units FROM hit')})
     SELECT 1 AS adm_i, ${admission('hit', 'charged.count', 'charged')}, r.*
       FROM hit JOIN charged ON true
       LEFT JOIN LATERAL (${render({
         param: (x) => `$${position(x)}::${x.type}`,
         account: 'hit.id',
         caller: 'hit',
         unit: 'charged.count',
       })}) r ON true
      ${many ? 'ORDER BY r.adm_n' : ''}`,
  );
  const batch = statement(
    `${decl.name}_batch`,
    `WITH req AS (SELECT adm_i, ($1::bytea[])[adm_i] AS adm_digest FROM generate_subscripts($1::bytea[], 1) AS adm_i),
          hit AS (${tokenMatch('t.secret_hash = ANY($1::bytea[])')}),
          caller AS (
            SELECT req.adm_i, hit.*,
                   row_number() OVER (PARTITION BY hit.id ORDER BY req.adm_i) AS adm_rank,
                   count(*) OVER (PARTITION BY hit.id) AS adm_k
              FROM req JOIN hit ON hit.secret_hash = req.adm_digest),
          charged AS (${windowCharge('SELECT id AS account_id, count(*)::int AS units FROM caller GROUP BY id')}),
          u AS (
            SELECT caller.*, (charged.count - caller.adm_k + caller.adm_rank)::int AS adm_unit,
                   charged.window_start, charged.now
              FROM caller JOIN charged ON charged.account_id = caller.id)
     SELECT u.adm_i, ${admission('u', 'u.adm_unit', 'u')}, r.*
       FROM (SELECT * FROM u ORDER BY adm_i) u LEFT JOIN LATERAL (${render({
         param: (x) => `($${position(x)}::${x.type}[])[u.adm_i]`,
         account: 'u.id',
         caller: 'u',
         unit: 'u.adm_unit',
       })}) r ON true
      ${many ? 'ORDER BY u.adm_i, r.adm_n' : ''}`,
  );
  const st = { name: decl.name, cls: decl.cls, one, batch, params: order };
  return {
    ...st,
    read: (values) => ({ statement: st, values: order.map((x) => values[x.name as Names]) }),
  };
}

/** What one admitted request gets: its caller, its own unit of the window, its rows. */
export interface Admitted<Row> {
  auth: Authenticated;
  window: WindowRow;
  rows: Row[];
}

/** One request of a batch: its token's digest and its read's values. */
export interface Request {
  readonly digest: Buffer;
  readonly values: readonly unknown[];
}

/** The statement and parameters that admit `requests`: `one` for a request alone, else `batch`. */
export function admittedQuery(
  st: AdmittedStatement,
  requests: readonly Request[],
): { statement: Statement; values: unknown[] } {
  for (const r of requests) {
    if (r.values.length !== st.params.length) throw new Error(`${st.name} takes ${st.params.length} values`);
  }
  if (requests.length === 1)
    return { statement: st.one, values: [requests[0]!.digest, st.cls, ...requests[0]!.values] };
  return {
    statement: st.batch,
    values: [requests.map((r) => r.digest), st.cls, ...st.params.map((_, at) => requests.map((r) => r.values[at]))],
  };
}

type AdmissionRow = { adm_i: number; adm_found: boolean | null; adm_unit: number } & Record<string, unknown>;

/**
 * Runs `st` for requests of any tokens: what each got, in order; null for a request whose token
 * is not live. One request runs `one`, more run `batch`. `db.run` failing fails them all.
 */
export async function runAdmitted(
  db: StatementRunner,
  st: AdmittedStatement,
  requests: readonly Request[],
): Promise<(Admitted<unknown> | null)[]> {
  const { statement: sent, values } = admittedQuery(st, requests);
  const rows = await db.run<AdmissionRow>(sent, values);
  const out: (Admitted<unknown> | null)[] = requests.map(() => null);
  for (const row of rows) {
    const i = row.adm_i - 1;
    let admitted = out[i];
    if (admitted === null) {
      const match: Record<string, unknown> = {};
      for (const [n, column] of ADMISSION_COLUMNS) match[n] = row[column];
      const auth = trusted(db, match as MatchRow, requests[i]!.digest);
      if (!auth) continue;
      admitted = out[i] = {
        auth,
        window: { count: row.adm_unit, window_start: row.adm_window_start as string, now: row.adm_now as string },
        rows: [],
      };
    }
    if (admitted && row.adm_found) admitted.rows.push(row);
  }
  return out;
}
