import pg from 'pg';

/**
 * Named prepared statements on a plain `pg` pool, for the requests that run most often
 * (authentication with its rate-limit charge, the article reads, and the two article writes,
 * create and edit, in transactions of their own).
 *
 * Why not the ORM's connection: MikroORM sends every query as an unnamed statement, so
 * PostgreSQL parses and plans it again on each call, and its result rows go through entity
 * mapping. Here each statement is parsed and planned once per connection (pg keeps the
 * prepared name per client), and rows come back as plain objects whose timestamps stay
 * PostgreSQL's text, turned into ISO 8601 by `isoTimestamp` without building a Date.
 *
 * Every other write keeps using the ORM (transactions, entities); both pools share one database.
 * A statement on this pool costs one round trip and no query building: on a loopback
 * connection the round trip itself (the socket write and PostgreSQL's wake-up) is most of a
 * small write's CPU, so the hot writes count their statements.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A statement is declared once at module level; its name must be unique in the process. */
export function statement(name: string, text: string): Statement {
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
 * PostgreSQL prints a `timestamptz(3)` in a UTC session as `2026-11-22 14:36:01.123+00`,
 * dropping zero milliseconds (`…:01+00`) and trailing zeros (`…:01.12+00`). ISO 8601 with
 * exactly three fraction digits, as the API returns everywhere, is a few string operations.
 */
export function isoTimestamp(pgText: string): string {
  const plus = pgText.length - 3; // "+00"
  const dot = pgText.indexOf('.', 19);
  const fraction = dot === -1 ? '000' : (pgText.slice(dot + 1, plus) + '00').slice(0, 3);
  return `${pgText.slice(0, 10)}T${pgText.slice(11, 19)}.${fraction}Z`;
}

const query = (st: Statement, values: unknown[]) => ({ name: st.name, text: st.text, values, types }) as pg.QueryConfig;

class PgStatementRunner implements StatementRunner {
  constructor(
    private readonly pool: pg.Pool,
    private readonly transactions: pg.Pool,
  ) {}

  async run<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return (await this.pool.query(query(st, values))).rows as T[];
  }

  async runWrite<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return (await this.transactions.query(query(st, values))).rows as T[];
  }

  async transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    const client = await this.transactions.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const out = await work(new TransactionRunner(client));
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
  constructor(private readonly client: pg.PoolClient) {}

  async run<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return (await this.client.query(query(st, values))).rows as T[];
  }

  runWrite<T>(st: Statement, values: unknown[]): Promise<T[]> {
    return this.run<T>(st, values);
  }

  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return work(this);
  }
}

/** A pool of connections that run prepared statements; held and closed by server/runtime.ts. */
export interface StatementPool {
  readonly runner: StatementRunner;
  /** Connections in use and idle, and requests waiting for one (metrics). */
  stats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/**
 * A statement pool of at most `max` connections for `url`, and as many again for transactions
 * and writes (`runWrite`): those may wait for a row lock (an edit's transaction even converts
 * under it), and writers waiting so must never hold the connections that authentication and
 * reads need. Short timeouts as for the ORM's pool:
 * with PostgreSQL down, or every connection busy, a request fails within seconds (503, see
 * errors.ts), and connections are opened again on demand, so the service recovers by itself.
 * `TimeZone=UTC` makes `isoTimestamp` valid.
 */
export function openStatementPool(url: string, max = 10): StatementPool {
  const open = () => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 2_000,
      statement_timeout: 15_000,
      options: '-c TimeZone=UTC',
    });
    // An idle client whose server went away emits 'error' on the pool; without a listener it
    // would crash the process. The next query opens a fresh connection.
    pool.on('error', () => {});
    return pool;
  };
  const pool = open();
  const transactions = open();
  return {
    runner: new PgStatementRunner(pool, transactions),
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
