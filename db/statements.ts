import pg from 'pg';
import { startupParameters, TRANSACTION_PREAMBLE, usesNamedStatements, type PoolerMode } from './connection-mode';
import { inSpan, inTrace, SpanKind, TRACING } from '../server/foundation/tracing';

/**
 * The one way to the data on the request path: prepared statements on plain `pg` pools. Every
 * statement is declared once, by the aggregate's module in server/data/, and run through a
 * StatementRunner that the composition root (server/runtime/create-app.ts) hands in.
 *
 * Why not an ORM's unit of work: MikroORM sends every query as an unnamed statement, so
 * PostgreSQL parses and plans it again on each call, and its result rows go through entity
 * mapping. Here each statement is parsed and planned once per connection (pg keeps the
 * prepared name per client), and rows come back as plain objects whose timestamps stay
 * PostgreSQL's text, turned into ISO 8601 by `isoTimestamp` without building a Date. On a
 * loopback connection the round trip itself (the socket write and PostgreSQL's wake-up) is most
 * of a small request's CPU, so the hot paths count their statements. MikroORM keeps the schema
 * and its migrations (db/migrate.ts).
 *
 * Behind a transaction-mode pooler without prepared-statement support (connection-mode.ts) the
 * same statements run unnamed: parsed and planned on every call, and correct.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** Every statement declared in the process, by name. */
const declared = new Map<string, string>();

/**
 * A statement is declared once at module level; its name must be unique in the process: a
 * prepared statement is found by its name on each connection, so two texts under one name would
 * run one another's plan. A second declaration of the same text is the same statement (a module
 * bundled twice, as Next bundles the console's), and is allowed.
 */
export function statement(name: string, text: string): Statement {
  const earlier = declared.get(name);
  if (earlier !== undefined && earlier !== text) throw new Error(`statement ${name} is declared twice, with two texts`);
  declared.set(name, text);
  return { name, text };
}

export interface StatementRunner {
  run<T>(st: Statement, values: unknown[]): Promise<T[]>;
  /**
   * A write that may wait for another transaction's lock (an article's row, a key being
   * inserted): it runs on the connections of transactions, so a writer that waits never holds
   * one that authentication and reads need. Inside a transaction, the transaction's connection.
   */
  runWrite<T>(st: Statement, values: unknown[]): Promise<T[]>;
  /**
   * `work` in one transaction on one connection (BEGIN … COMMIT; ROLLBACK when it throws). Its
   * statements run on the runner `work` is given; inside a transaction, another `transaction`
   * call runs within it.
   */
  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T>;
}

const TIMESTAMPTZ_OID = 1184;
const TIMESTAMP_OID = 1114;
const keepText = (value: string) => value;

/** Our own type table: timestamps stay text (ISO conversion happens only where needed). */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID || oid === TIMESTAMP_OID) return keepText;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

/**
 * PostgreSQL prints a `timestamptz(3)` in a UTC session (every connection here is one) as `2026-11-22 14:36:01.123+00`,
 * dropping zero milliseconds (`…:01+00`) and trailing zeros (`…:01.12+00`). ISO 8601 with
 * exactly three fraction digits, as the API returns everywhere, is a few string operations.
 */
export function isoTimestamp(pgText: string): string {
  const plus = pgText.length - 3; // "+00"
  const dot = pgText.indexOf('.', 19);
  const fraction = dot === -1 ? '000' : (pgText.slice(dot + 1, plus) + '00').slice(0, 3);
  return `${pgText.slice(0, 10)}T${pgText.slice(11, 19)}.${fraction}Z`;
}

/** Whether statements are sent named (prepared once per connection) or unnamed; see connection-mode.ts. */
interface Naming {
  named: boolean;
}

const config = (naming: Naming, st: Statement, values: unknown[]) =>
  (naming.named ? { name: st.name, text: st.text, values, types } : { text: st.text, values, types }) as pg.QueryConfig;

/** What pg's Query and Result keep of a row description (lib/query.js, lib/result.js). */
interface PgResult {
  command: string | null;
  fields: pg.FieldDef[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  parseRow(raw: (string | null)[]): Record<string, unknown>;
}
interface PgQuery {
  text: string;
  callback?: unknown;
  _result: PgResult;
  _accumulateRows: boolean;
  listeners(event: 'row'): unknown[];
  handleRowDescription(msg: { fields: pg.FieldDef[] }): void;
}

/** A statement's columns as pg prepares to read them: a parser per column and an empty row. */
interface RowShape {
  fields: pg.FieldDef[];
  parsers: unknown[];
  empty: Record<string, null>;
  /** The row reader compiled for these columns (`compileRowReader`), or null: pg's own. */
  readRow: PgResult['parseRow'] | null;
}

type TextParser = (text: string) => unknown;

/**
 * A row of these columns read by one function that returns an object literal, as pg's
 * `Result.parseRow` would build it: each column's text through its type parser, NULL as null,
 * the columns in order (a name given twice keeps its first place and its last value, as pg's
 * assignments do). pg copies an empty row and then sets each column by its name, a keyed store
 * per column that V8 cannot specialise across ~40 names: for a page of 20 articles (about 800
 * values) that was a tenth of the REST thread's CPU (profile of 2026-11-29). A literal's
 * properties are laid out once by V8. Only text-format columns (all this service asks for) and
 * ordinary names: otherwise null, and pg reads the row. Names are written with JSON.stringify and
 * the parsers passed in as arguments, so the source holds no outside text.
 */
function compileRowReader(fields: readonly pg.FieldDef[], parsers: readonly unknown[]): PgResult['parseRow'] | null {
  if (fields.some((f) => f.format !== 'text' || f.name === '__proto__')) return null;
  const properties = fields.map((f, i) => `${JSON.stringify(f.name)}: r[${i}] === null ? null : p${i}(r[${i}])`);
  const factory = new Function(
    ...parsers.map((_, i) => `p${i}`),
    `return function parseRow(r) { return { ${properties.join(', ')} }; };`,
  ) as (...parsers: TextParser[]) => PgResult['parseRow'];
  return factory(...(parsers as TextParser[]));
}

/** Row shapes by statement text: as many as the process declares statements. */
const shapes = new Map<string, RowShape>();

const sameColumns = (a: readonly pg.FieldDef[], b: readonly pg.FieldDef[]) =>
  a.length === b.length &&
  a.every((f, i) => f.name === b[i]!.name && f.dataTypeID === b[i]!.dataTypeID && f.format === b[i]!.format);

/**
 * pg's Query, reading a statement's rows with a shape it built once. pg builds the shape (a type
 * parser per column and an empty row, through a prototype-less object) from the row description
 * on every execution: for the ~37 columns of an admitted GET /posts/{id}, about 45 µs of a
 * request's CPU, more than parsing the row itself (CPU profile, 2026-11-28). A statement's
 * columns do not change while the process runs, and each description is still compared with the
 * shape kept (names, types, formats) before the shape is used; any difference, or a statement
 * text of several statements, takes pg's own way.
 */
class ShapedQuery extends (pg.Query as unknown as new (config: pg.QueryConfig) => PgQuery) {
  handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    const result = this._result;
    const shape = shapes.get(this.text);
    if (result.command !== null || !shape || !sameColumns(shape.fields, msg.fields)) {
      super.handleRowDescription(msg);
      if (result.command === null && this._result === result && result._parsers && result._prebuiltEmptyResultObject)
        shapes.set(this.text, {
          fields: msg.fields,
          parsers: result._parsers,
          empty: result._prebuiltEmptyResultObject,
          readRow: compileRowReader(msg.fields, result._parsers),
        });
      return;
    }
    // The kept descriptions, not this message's: their names are the property keys V8 has
    // already interned, so each row's properties are set on the fast path.
    result.fields = shape.fields;
    result._parsers = shape.parsers;
    result._prebuiltEmptyResultObject = shape.empty;
    if (shape.readRow) result.parseRow = shape.readRow;
    this._accumulateRows = Boolean(this.callback) || this.listeners('row').length === 0;
  }
}

/**
 * Each statement sent is a span when traces are on (server/foundation/tracing.ts): `sql <name>`,
 * with the statement's name and the rows it returned, never its text's values; a statement sent
 * again unnamed (below) is a second span. Only inside a traced operation (`inTrace`): a timer's
 * statement starts no trace of its own. Off, `send` is called directly.
 */
function traced(st: Statement, send: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
  const attributes = { 'db.system': 'postgresql', 'db.statement.name': st.name };
  return inSpan(`sql ${st.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await send();
    span.setAttribute('db.response.returned_rows', result.rows.length);
    return result;
  });
}

/** `st` on a pool (which takes a connection for it and gives it back). */
const onPool = (pool: pg.Pool, naming: Naming, st: Statement, values: unknown[]) =>
  TRACING && inTrace() ? traced(st, () => poolQuery(pool, naming, st, values)) : poolQuery(pool, naming, st, values);

const poolQuery = (pool: pg.Pool, naming: Naming, st: Statement, values: unknown[]) =>
  pool.query(new ShapedQuery(config(naming, st, values)) as never) as unknown as Promise<pg.QueryResult>;

/** `st` on a connection held for a transaction. */
const onClient = (client: pg.PoolClient, naming: Naming, st: Statement, values: unknown[]) =>
  TRACING && inTrace()
    ? traced(st, () => clientQuery(client, naming, st, values))
    : clientQuery(client, naming, st, values);

const clientQuery = (client: pg.PoolClient, naming: Naming, st: Statement, values: unknown[]) =>
  new Promise<pg.QueryResult>((resolve, reject) => {
    client.query(
      new ShapedQuery(config(naming, st, values)) as never,
      ((err: Error | null, result: pg.QueryResult) => (err ? reject(err) : resolve(result))) as never,
    );
  });

/**
 * A named statement refused for what only a transaction-mode pooler does (the Parse reached one
 * server connection and the Bind another): "already exists" (42P05) or "does not exist" (26000).
 * Either way the statement did not run.
 */
function refusedNamedStatement(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '42P05' || code === '26000';
}

class PgStatementRunner implements StatementRunner {
  constructor(
    private readonly pool: pg.Pool,
    private readonly transactions: pg.Pool,
    private readonly naming: Naming & { onUnnamed?: () => void },
  ) {}

  run<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return this.outside(this.pool, st, values);
  }

  runWrite<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return this.outside(this.transactions, st, values);
  }

  /**
   * A statement outside a transaction. When a named one is refused as only a pooler refuses it
   * (a pooler told to ignore this service's start-up parameters, so `auto` did not see it), the
   * process sends every statement unnamed from then on, and this one again: it never ran.
   */
  private async outside<T>(pool: pg.Pool, st: Statement, values: unknown[]): Promise<T[]> {
    const sentNamed = this.naming.named;
    try {
      return (await onPool(pool, this.naming, st, values)).rows as T[];
    } catch (err) {
      // Statements sent named before the first refusal are refused too: each runs again unnamed.
      if (!sentNamed || !refusedNamedStatement(err)) throw err;
      if (this.naming.named) {
        this.naming.named = false;
        this.naming.onUnnamed?.();
      }
      return (await onPool(pool, this.naming, st, values)).rows as T[];
    }
  }

  async transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    const client = await this.transactions.connect();
    let broken: Error | undefined;
    try {
      // One round trip: the transaction and its timeout (a pooler passes SET LOCAL on).
      await client.query(`BEGIN; ${TRANSACTION_PREAMBLE}`);
      const out = await work(new TransactionRunner(client, this.naming));
      await client.query('COMMIT');
      return out;
    } catch (err) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/** The statements of one open transaction, on its connection. */
class TransactionRunner implements StatementRunner {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly naming: Naming & { onUnnamed?: () => void },
  ) {}

  /** A refused named statement aborts the transaction: the next ones, in any transaction, are unnamed. */
  async run<T>(st: Statement, values: unknown[]): Promise<T[]> {
    try {
      return (await onClient(this.client, this.naming, st, values)).rows as T[];
    } catch (err) {
      if (this.naming.named && refusedNamedStatement(err)) {
        this.naming.named = false;
        this.naming.onUnnamed?.();
      }
      throw err;
    }
  }

  runWrite<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return this.run<T>(st, values);
  }

  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return work(this);
  }
}

/** A pool of connections that run prepared statements; held and closed by server/runtime/create-app.ts. */
export interface StatementPool {
  readonly runner: StatementRunner;
  /** Connections in use and idle, and requests waiting for one (metrics). */
  stats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/**
 * `TimeZone=UTC` as a start-up parameter, which `isoTimestamp` and the UTC-day SQL rely on:
 * PostgreSQL takes it, and a transaction-mode pooler too (PgBouncer re-applies it to each server
 * connection it hands this client). pg's Client has no option for it, hence this one override.
 */
class UtcClient extends pg.Client {
  getStartupConf(): Record<string, string> {
    const conf = (pg.Client.prototype as unknown as { getStartupConf(): Record<string, string> }).getStartupConf.call(
      this,
    );
    return { ...conf, TimeZone: 'UTC' };
  }
}

export interface StatementPoolOptions {
  /** Connections of each of the two pools. */
  max?: number;
  /** Direct, or behind a transaction-mode pooler (connection-mode.ts). */
  mode?: PoolerMode;
  /** Told once when a refused named statement turned this pool to unnamed statements. */
  onUnnamed?: () => void;
}

/**
 * A statement pool of at most `max` connections for `url`, and as many again for transactions
 * and writes (`runWrite`): those may wait for a row lock (an edit's transaction even converts
 * under it), and writers waiting so must never hold the connections that authentication and
 * reads need. Short timeouts:
 * with PostgreSQL down, or every connection busy, a request fails within seconds (503, see
 * errors.ts), and connections are opened again on demand, so the service recovers by itself.
 */
export function openStatementPool(url: string, options: StatementPoolOptions = {}): StatementPool {
  const { max = 10, mode = 'none', onUnnamed } = options;
  const open = () => {
    const pool = new pg.Pool({
      connectionString: url,
      Client: UtcClient,
      max,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 2_000,
      ...startupParameters(mode),
    });
    // An idle client whose server went away emits 'error' on the pool; without a listener it
    // would crash the process. The next query opens a fresh connection.
    pool.on('error', () => {});
    return pool;
  };
  const pool = open();
  const transactions = open();
  const naming = { named: usesNamedStatements(mode), onUnnamed };
  return {
    runner: new PgStatementRunner(pool, transactions, naming),
    stats: () => ({
      total: pool.totalCount + transactions.totalCount,
      idle: pool.idleCount + transactions.idleCount,
      waiting: pool.waitingCount + transactions.waitingCount,
    }),
    close: async () => {
      await Promise.all([pool.end(), transactions.end()]);
    },
  };
}
