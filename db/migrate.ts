import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { startupParameters, type PoolerMode } from './connection-mode';
import { migrationsList } from './migrations';

/**
 * MikroORM's part: the schema, as the migrations in db/migrations/ build it, and applying them.
 * Requests never go through it: every request reaches the data through the prepared statements
 * of server/data/ (db/statements.ts), whose writes are one or two statements each, where a
 * unit of work would only add the loading and the change tracking. So the ORM here has no
 * entities, only the Migrator, and lives only while a process starts.
 *
 * Timeouts are short on purpose (a start waits for its database in provide-database.ts, not
 * here); every connection works in UTC, set when it opens, which a transaction-mode pooler
 * records and re-applies (connection-mode.ts).
 */
export function ormOptions(clientUrl: string, mode: PoolerMode = 'none'): Options {
  return {
    clientUrl,
    entities: [],
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    pool: {
      min: 0,
      // Migrations hold one connection (one transaction); start-up needs no more.
      max: 2,
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
