/**
 * Schema changes and instances that start together (README, "Schema changes while instances
 * serve"): any number of instances started at once on an empty database all serve (migrations
 * take turns under an advisory lock); a later migration that only adds (expand) is applied
 * while an instance of the release before it serves, and breaks none of its requests; and an
 * instance of that older release still starts on the newer schema.
 */
import { Migration } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { migrationsList } from '../../db/migrations';
import { migrate, ormOptions } from '../../db/migrate';
import { cli, startService, type RunningService } from '../support/service';
import { freshDatabaseUrl } from './media-helpers';

const running: RunningService[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
});

async function start(databaseUrl: string): Promise<RunningService> {
  const service = await startService({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', CONTENT_POOL_THREADS: '1' });
  running.push(service);
  return service;
}

async function appliedMigrations(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM mikro_orm_migrations ORDER BY id');
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

it('four instances started together on an empty database all serve, each migration applied once', async () => {
  const databaseUrl = await freshDatabaseUrl('together');
  const instances = await Promise.all([1, 2, 3, 4].map(() => start(databaseUrl)));
  for (const instance of instances) expect((await fetch(`${instance.baseUrl}/api/health`)).status).toBe(200);
  expect(await appliedMigrations(databaseUrl)).toEqual(migrationsList.map((m) => m.name));
  await Promise.all(instances.map((i) => i.stop()));
  running.length = 0;
}, 300_000);

/** The next release's first step: it only adds (a nullable column, a table), so this release's code never notices. */
class Migration20991231000000_expand_example extends Migration {
  override async up(): Promise<void> {
    this.addSql('SET LOCAL lock_timeout = 5000;');
    this.addSql('ALTER TABLE posts ADD COLUMN expand_example text NULL;');
    this.addSql(
      'CREATE TABLE expand_example_notes (post_id uuid PRIMARY KEY REFERENCES posts(id), note text NOT NULL);',
    );
  }
}

it('an expand migration applied while an instance serves under load breaks none of its requests; that release still starts after it', async () => {
  const databaseUrl = await freshDatabaseUrl('expand');
  const older = await start(databaseUrl);
  const created = await cli({ ...older.env }, [
    'account',
    'create',
    'expander',
    '--limit',
    'write_per_min=100000',
    '--limit',
    'read_per_min=100000',
  ]);
  expect(created.code).toBe(0);
  const token = (created.json as { token: string }).token;
  const call = (method: string, path: string, json?: unknown) =>
    fetch(`${older.baseUrl}/api/v1/author${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  const statuses = new Map<string, number>();
  const failures: string[] = [];
  let loading = true;
  const worker = async (w: number) => {
    for (let n = 0; loading; n++) {
      const write = n % 3 === 0;
      const res = write
        ? await call('POST', '/posts', { title: `w${w} n${n}`, markdown: 'During the migration.' })
        : await call('GET', '/posts?limit=5');
      const key = `${write ? 'POST /posts' : 'GET /posts'} ${res.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (res.status >= 400 && failures.length < 5) failures.push(`${key}: ${res.text.slice(0, 200)}`);
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(worker));
  await new Promise((r) => setTimeout(r, 1500));
  const orm = await MikroORM.init({
    ...ormOptions(databaseUrl),
    migrations: {
      ...ormOptions(databaseUrl).migrations,
      migrationsList: [
        ...migrationsList,
        { name: 'Migration20991231000000_expand_example', class: Migration20991231000000_expand_example },
      ],
    },
  });
  let applied: string[];
  try {
    applied = await migrate(orm);
  } finally {
    await orm.close(true);
  }
  await new Promise((r) => setTimeout(r, 1500));
  loading = false;
  await load;
  expect(applied).toEqual(['Migration20991231000000_expand_example']);
  const writes = [...statuses].filter(([k]) => k.startsWith('POST')).reduce((n, [, v]) => n + v, 0);
  expect(writes).toBeGreaterThan(0);
  expect(
    [...statuses.keys()].every((k) => k.endsWith(' 201') || k.endsWith(' 200')),
    failures.join('\n'),
  ).toBe(true);

  // The older release restarts (a rolling restart, or a rollback) on the newer schema.
  await older.stop();
  running.splice(running.indexOf(older), 1);
  const again = await start(databaseUrl);
  expect((await fetch(`${again.baseUrl}/api/health`)).status).toBe(200);
  const read = await fetch(`${again.baseUrl}/api/v1/author/posts?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(read.status).toBe(200);
}, 300_000);
