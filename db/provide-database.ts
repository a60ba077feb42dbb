import { MikroORM } from '@mikro-orm/postgresql';
import { resolvePoolerMode, type PoolerMode, type PoolerSetting } from './connection-mode';
import { startEmbeddedPostgres } from './embedded-postgres';
import { isDatabaseUnavailable } from './errors';
import { migrate, ormOptions } from './migrate';

/**
 * The database for a process that owns its lifecycle (the launcher, the CLI): DATABASE_URL
 * when set, otherwise the embedded cluster under DATA_DIR. Migrations are applied either way
 * (instances starting together take turns: orm.ts `migrate`). With DATABASE_URL, whether a
 * transaction-mode pooler sits in front is the setting's, or found out (connection-mode.ts).
 * The `url` returned is the one the statement pools connect with.
 */
export async function provideDatabase(
  where: { databaseUrl?: string; dataDir: string; pooler?: PoolerSetting },
  log: (msg: string) => void,
): Promise<{ url: string; mode: PoolerMode; stop(): Promise<void> }> {
  const db = where.databaseUrl
    ? { url: where.databaseUrl, localUrl: where.databaseUrl, stop: async () => {} }
    : await startEmbeddedPostgres(where.dataDir, log);
  try {
    const mode = where.databaseUrl
      ? await untilDatabaseAnswers(() => resolvePoolerMode(db.url, where.pooler ?? 'auto'), log)
      : 'none';
    if (mode !== 'none')
      log(
        mode === 'transaction'
          ? 'DATABASE_URL is a transaction-mode pooler: statements are sent unnamed (PgBouncer 1.21+ with max_prepared_statements: set DATABASE_POOLER=transaction-prepared)'
          : 'DATABASE_URL is a transaction-mode pooler that maps prepared statements',
      );
    const orm = await MikroORM.init(ormOptions(db.url, mode));
    try {
      const applied = await untilDatabaseAnswers(() => migrate(orm), log);
      if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    } finally {
      await orm.close(true);
    }
    // The statement pools take the embedded cluster's Unix socket (embedded-postgres.ts).
    return { url: db.localUrl, mode, stop: () => db.stop() };
  } catch (err) {
    await db.stop();
    throw err;
  }
}

/** How long a start waits for a database that is not answering yet (booting, restarting). */
const START_PATIENCE_MS = 30_000;

/**
 * `work`, tried again while the database is unreachable (a connection refused or timed out, as
 * db/errors.ts tells them), for up to START_PATIENCE_MS: an instance started with its database
 * (at boot, or several at once on a busy machine) waits for it instead of failing its start.
 */
export async function untilDatabaseAnswers<T>(work: () => Promise<T>, log: (msg: string) => void): Promise<T> {
  const deadline = Date.now() + START_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() > deadline) throw err;
      if (attempt === 1) log(`waiting for the database: ${err instanceof Error ? err.message : String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
