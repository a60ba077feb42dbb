import pg from 'pg';

/**
 * How the service talks to PostgreSQL: directly, or through a transaction-mode connection pooler
 * (PgBouncer, as managed PostgreSQL services put in front of the database). Under transaction
 * pooling each transaction, or each statement outside one, may run on another server connection,
 * so nothing may depend on a session:
 * - start-up parameters: a pooler refuses all but a few (`statement_timeout`, `options`:
 *   "unsupported startup parameter"); `TimeZone` is one it takes and re-applies to every server
 *   connection it hands out, so the session's zone is UTC either way;
 * - named prepared statements: PgBouncer before 1.21 passes the Parse to one server connection and
 *   a later Bind to another ("prepared statement … does not exist" / "already exists"); 1.21+
 *   with `max_prepared_statements` maps them itself;
 * - timeouts: set with `SET LOCAL` at the start of every transaction, which a pooler passes on;
 *   a statement outside a transaction takes the role's `statement_timeout` (deploy/pgbouncer/).
 *
 * `none`: direct (session start-up parameters, named statements); `transaction`: a pooler
 * without prepared-statement support (unnamed statements, planned on each call);
 * `transaction-prepared`: a pooler that maps named statements (PgBouncer 1.21+ with
 * `max_prepared_statements`).
 */
export type PoolerMode = 'none' | 'transaction' | 'transaction-prepared';
export type PoolerSetting = PoolerMode | 'auto';

/** Longest a statement may run (15 s): past it PostgreSQL cancels it and the request answers 503. */
const STATEMENT_TIMEOUT_MS = 15_000;

/** The first statement of every transaction on either pool: its timeout, whatever the session has. */
export const TRANSACTION_PREAMBLE = `SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`;

/** Start-up parameters a connection sends in `mode`, beside user and database. */
export function startupParameters(mode: PoolerMode): { statement_timeout?: number } {
  return mode === 'none' ? { statement_timeout: STATEMENT_TIMEOUT_MS } : {};
}

export function usesNamedStatements(mode: PoolerMode): boolean {
  return mode !== 'transaction';
}

const REFUSED_STARTUP = /unsupported startup parameter/i;

/**
 * `auto`: a connection with this service's start-up parameters is opened once; a server that
 * refuses them is a pooler (`transaction`). A pooler told to ignore them is found later, by the
 * statement pool, when a named statement fails (db/statements.ts).
 */
export async function resolvePoolerMode(url: string, setting: PoolerSetting): Promise<PoolerMode> {
  if (setting !== 'auto') return setting;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, ...startupParameters('none') });
  client.on('error', () => {});
  try {
    await client.connect();
    return 'none';
  } catch (err) {
    if (REFUSED_STARTUP.test(String((err as Error)?.message))) return 'transaction';
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}
