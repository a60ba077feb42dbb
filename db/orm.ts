import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { startupParameters, type PoolerMode } from './connection-mode';
import { allEntities } from './entities';
import { migrationsList } from './migrations';

/**
 * Pool timeouts are short on purpose: when PostgreSQL is down a request must get a
 * 503 within seconds, not hang; new connections are opened on demand, so the service
 * recovers by itself when the database returns. Every connection works in UTC: set once when it
 * opens, which a transaction-mode pooler records and re-applies (connection-mode.ts).
 */
export function ormOptions(clientUrl: string, mode: PoolerMode = 'none'): Options {
  return {
    clientUrl,
    entities: allEntities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    pool: {
      min: 0,
      max: 20,
      acquireTimeoutMillis: 3000,
      idleTimeoutMillis: 10000,
      afterCreate: (
        connection: { query(sql: string, done: (err: Error | null) => void): void },
        done: (err: Error | null, c: unknown) => void,
      ) => connection.query("SET TIME ZONE 'UTC'", (err) => done(err, connection)),
    },
    driverOptions: { connection: { connectionTimeoutMillis: 2000, ...startupParameters(mode) } },
    debug: false,
    allowGlobalContext: false,
  };
}

/** Connects an ORM to `clientUrl`; who holds it (and closes it) is server/runtime.ts. */
export function openOrm(clientUrl: string, mode: PoolerMode = 'none'): Promise<MikroORM> {
  return MikroORM.init(ormOptions(clientUrl, mode));
}

/** Any number of instances may start at once on one database: the first to take this lock migrates. */
const MIGRATION_LOCK = 0x7075626c; // "publ"

/**
 * Applies pending migrations; returns the names applied (the launcher logs them).
 *
 * All of them in one transaction that first takes a transaction-level advisory lock (which a
 * transaction-mode pooler keeps, unlike a session lock): instances starting together wait for
 * the first one's migrations to commit, then find nothing left to apply. No statement timeout
 * inside (a migration over a large table may take minutes).
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const connection = orm.em.getConnection();
  return connection.transactional(async (trx) => {
    await connection.execute('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK], 'run', trx);
    await connection.execute('SET LOCAL statement_timeout = 0', [], 'run', trx);
    const applied = await orm.getMigrator().up({ transaction: trx });
    return applied.map((m) => m.name);
  });
}
