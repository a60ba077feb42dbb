/**
 * The integration run's database, reached from a test worker: its URL, and the statement pool
 * the fixtures write through.
 *
 * Why the fixtures write here and not through the CLI: a fresh account per test is the suite's
 * commonest fixture (two hundred of them a run), and `account create` as a process costs about
 * a second of CPU each (Node, the bundled CLI, MikroORM and the migration check) where the
 * account itself is one transaction. `newAccount` (api.ts) calls the same service function the
 * CLI's `account create` calls, on this pool. The CLI itself keeps its own tests (cli.test.ts,
 * the e2e setup, the deployment test). Files that run a database of their own make theirs with
 * `createAccountFixture` the same way.
 */
import { inject } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import type { PoolerMode } from '../../db/connection-mode';
import { openStatementPool, type StatementPool } from '../../db/statements';
import { createAccount, parseLimitOverride, type LimitOverrides } from '../../server/services/access/accounts';

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
function fixtureStatements(): Promise<StatementPool> {
  // Idle, its connection closes by itself (idleTimeoutMillis), so the worker can end.
  pool ??= sharedDatabaseUrl().then((url) => openStatementPool(url, { max: 1 }));
  return pool;
}

export interface AccountFixture {
  handle: string;
  admin?: boolean;
  moderated?: boolean;
  /** Limit overrides by name (`read_per_min`…), as `account create --limit NAME=N` takes them. */
  limits?: Record<string, number>;
}

/**
 * An account made as `account create` makes it (the same service function), on the database at
 * `databaseUrl`, or on the run's shared one through this worker's pool when none is given. For
 * files that run a database of their own: one short connection per account (`mode`
 * 'transaction' through a transaction pooler, as the deployment's PgBouncer).
 */
export async function createAccountFixture(
  fixture: AccountFixture,
  databaseUrl?: string,
  mode: PoolerMode = 'none',
): Promise<{ id: string; handle: string; token: string }> {
  const limits: LimitOverrides = {};
  for (const [name, value] of Object.entries(fixture.limits ?? {})) {
    const [limit, n] = parseLimitOverride(`${name}=${value}`);
    limits[limit] = n;
  }
  const db = databaseUrl ? openStatementPool(databaseUrl, { max: 1, mode }) : await fixtureStatements();
  try {
    const { account, secret } = await createAccount(db.runner, fixture.handle, {
      admin: fixture.admin ?? false,
      moderated: fixture.moderated ?? false,
      limits,
    });
    return { id: account.id, handle: account.handle, token: secret };
  } finally {
    if (databaseUrl) await db.close();
  }
}
