/**
 * Recognises "the database is not there" among driver errors, so the transport can answer
 * 503 service_unavailable instead of 500: when PostgreSQL goes away, or every connection of a
 * pool is busy, clients get a prompt answer that tells them to retry rather than an opaque
 * failure. The one home of that decision for both pools (the ORM's knex pool and the
 * prepared-statement pool, db/statements.ts): connection refused or reset, a pool that could not
 * give a connection in time (knex: "Timeout acquiring a connection"; pg-pool: "timeout exceeded
 * when trying to connect", "Connection terminated due to connection timeout" when a new
 * connection could not be opened in time), a pool already closed at shutdown, server shutdown, a statement
 * cancelled by its statement_timeout, and the connection-class SQLSTATEs.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);
// Connection exceptions, admin/crash shutdown, cannot connect now, too many connections,
// query_canceled (57014: only statement_timeout cancels statements here), and a named statement
// refused as only a transaction-mode pooler refuses it (42P05, 26000: the statement did not run;
// the pool sends the next ones unnamed, see statements.ts), so the client may simply retry.
const SQLSTATE_UNAVAILABLE = /^(08|57P0[1-3]|53300|57014|42P05|26000)/;
const MESSAGE_UNAVAILABLE = new RegExp(
  [
    'Connection terminated',
    'Timeout acquiring a connection',
    'timeout exceeded when trying to connect',
    // pg's own Client (connectionTimeoutMillis) when a connection is not open in time.
    '^timeout expired$',
    'Cannot use a pool after calling end on the pool',
    'connect ECONNREFUSED',
    'Connection ended',
    'terminating connection',
    'the database system is (starting up|shutting down)',
    'Client has encountered a connection error',
    'Client was closed and is not queryable',
    // knex, for a statement on a transaction that its own BEGIN (or an earlier transaction
    // statement) ended because the connection failed: the connection error itself goes to the
    // transaction's promise, and the caller sees only this. Nothing here queries a transaction
    // after its commit (the ORM ends one only once its callback returned).
    'Transaction query already complete',
  ].join('|'),
  'i',
);

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SQLSTATE_UNAVAILABLE.test(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (MESSAGE_UNAVAILABLE.test(message)) return true;
  if (name(e) === 'KnexTimeoutError' || name(e) === 'ConnectionException') return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

function name(e: { name?: unknown; constructor?: { name?: string } }): string {
  return typeof e.name === 'string' ? e.name : (e.constructor?.name ?? '');
}
