import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { allEntities } from './entities';
import { migrationsList } from './migrations';

/**
 * Pool timeouts are short on purpose: when PostgreSQL is down a request must get a
 * 503 within seconds, not hang; new connections are opened on demand, so the service
 * recovers by itself when the database returns.
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

/** Connects an ORM to `clientUrl`; who holds it (and closes it) is server/runtime.ts. */
export function openOrm(clientUrl: string): Promise<MikroORM> {
  return MikroORM.init(ormOptions(clientUrl));
}

/** Applies pending migrations; returns the names applied (the launcher logs them). */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
