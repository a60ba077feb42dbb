import { MikroORM } from '@mikro-orm/postgresql';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrate, ormOptions } from './orm';

/**
 * The database for a process that owns its lifecycle (the launcher, the CLI): DATABASE_URL
 * when set, otherwise the embedded cluster under DATA_DIR. Migrations are applied either way.
 */
export async function provideDatabase(
  where: { databaseUrl?: string; dataDir: string },
  log: (msg: string) => void,
): Promise<{ url: string; stop(): Promise<void> }> {
  const db = where.databaseUrl
    ? { url: where.databaseUrl, stop: async () => {} }
    : await startEmbeddedPostgres(where.dataDir, log);
  try {
    const orm = await MikroORM.init(ormOptions(db.url));
    try {
      const applied = await migrate(orm);
      if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    } finally {
      await orm.close(true);
    }
  } catch (err) {
    await db.stop();
    throw err;
  }
  return db;
}
