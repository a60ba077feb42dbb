/**
 * The integration run's database, reached from a test worker: its URL, and the statement pool
 * the fixtures write through.
 *
 * Why the fixtures write here and not through the CLI: a fresh account per test is the suite's
 * commonest fixture (two hundred of them a run), and `account create` as a process costs about
 * a second of CPU each (Node, the bundled CLI, MikroORM and the migration check) where the
 * account itself is one transaction. `newAccount` (api.ts) calls the same service function the
 * CLI's `account create` calls, on this pool. The CLI itself keeps its own tests (cli.test.ts,
 * the e2e setup, the deployment test).
 */
import { inject } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { openStatementPool, type StatementPool } from '../../db/statements';

/** The run's DATA_DIR and DATABASE_URL (empty when the service runs its embedded cluster). */
export function sharedServiceEnv(): { DATA_DIR: string; DATABASE_URL: string } {
  return JSON.parse(inject('serviceEnv')) as { DATA_DIR: string; DATABASE_URL: string };
}

/** A URL to the database the run's service uses (its embedded cluster joined, when it runs one). */
export async function sharedDatabaseUrl(): Promise<string> {
  const env = sharedServiceEnv();
  if (env.DATABASE_URL) return env.DATABASE_URL;
  return (await startEmbeddedPostgres(env.DATA_DIR, () => {})).url;
}

let pool: Promise<StatementPool> | undefined;

/** This worker's statement pool on the shared database (one connection; opened on first use). */
export function fixtureStatements(): Promise<StatementPool> {
  // Idle, its connection closes by itself (idleTimeoutMillis), so the worker can end.
  pool ??= sharedDatabaseUrl().then((url) => openStatementPool(url, { max: 1 }));
  return pool;
}
