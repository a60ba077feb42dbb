import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { allEntities } from './entities';
import { migrationsList } from './migrations';
import { onShutdown } from '../server/lifecycle';
import { sweepOldWindows } from '../server/services/limits';

/**
 * One ORM per process, kept on globalThis because Next's dev server re-evaluates modules.
 * Pool timeouts are short on purpose: when PostgreSQL is down a request must get a
 * 503 within seconds, not hang (issue 2 "Failure"); new connections are opened on
 * demand, so the service recovers by itself when the database returns.
 */
export function ormOptions(clientUrl: string): Options {
  return {
    clientUrl,
    entities: allEntities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 20, acquireTimeoutMillis: 3000, idleTimeoutMillis: 10000 },
    driverOptions: { connection: { connectionTimeoutMillis: 2000, statement_timeout: 15000 } },
    debug: false,
    allowGlobalContext: false,
  };
}

const globalForOrm = globalThis as unknown as { __publishingOrm?: Promise<MikroORM> };

export function getOrm(): Promise<MikroORM> {
  if (!globalForOrm.__publishingOrm) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: start the service with `npm start`, which provides the database');
    globalForOrm.__publishingOrm = MikroORM.init(ormOptions(url)).then(
      (orm) => {
        // Minute windows are useless after their minute: one sweep per process keeps the table small.
        const sweep = setInterval(() => sweepOldWindows(orm.em.fork() as never).catch(() => {}), 5 * 60_000);
        sweep.unref();
        onShutdown(async () => {
          clearInterval(sweep);
          await orm.close(true);
        });
        return orm;
      },
      (err) => {
        globalForOrm.__publishingOrm = undefined; // retry on the next request once the database is back
        throw err;
      },
    );
  }
  return globalForOrm.__publishingOrm;
}

/** Applies pending migrations; returns the names applied (the launcher logs them). */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
