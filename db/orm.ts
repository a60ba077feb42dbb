import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { allEntities } from './entities';
import { migrationsList } from './migrations';
import { onShutdown } from '../server/lifecycle';

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

/**
 * One ORM per copy of the entity definitions. The launcher's code and the code Next loads for
 * the console are separate module instances, each with its own entity objects, so each gets
 * an ORM that knows its own; keyed on globalThis so that Next's dev server, which evaluates
 * modules again, does not open a pool per evaluation.
 */
const holder = globalThis as unknown as { __publishingOrms?: WeakMap<object, Promise<MikroORM>> };
const orms = (holder.__publishingOrms ??= new WeakMap());

export function getOrm(): Promise<MikroORM> {
  const existing = orms.get(allEntities);
  if (existing) return existing;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: start the service with `npm start`, which provides the database');
  const orm = MikroORM.init(ormOptions(url)).then(
    (ready) => {
      onShutdown(() => ready.close(true));
      return ready;
    },
    (err) => {
      orms.delete(allEntities); // retry on the next request once the database is back
      throw err;
    },
  );
  orms.set(allEntities, orm);
  return orm;
}

/** Applies pending migrations; returns the names applied (the launcher logs them). */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
