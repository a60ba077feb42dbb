/**
 * Recognises "the database is not there" among driver errors, so the transport can answer
 * 503 service_unavailable instead of 500: when PostgreSQL goes away, clients get a prompt answer
 * that tells them to retry rather than an opaque failure. Connection refused or reset,
 * pool acquisition timeouts, server shutdown and connection-class SQLSTATEs all count.
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
const SQLSTATE_UNAVAILABLE = /^(08|57P0[1-3]|53300)/; // connection exceptions, admin/crash shutdown, cannot connect now, too many connections

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SQLSTATE_UNAVAILABLE.test(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (
    /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|Connection ended|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i.test(
      message,
    )
  ) {
    return true;
  }
  if (name(e) === 'KnexTimeoutError' || name(e) === 'ConnectionException') return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

function name(e: { name?: unknown; constructor?: { name?: string } }): string {
  return typeof e.name === 'string' ? e.name : (e.constructor?.name ?? '');
}
