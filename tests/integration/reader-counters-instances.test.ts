/**
 * Two instances on one PostgreSQL count into the same rows: 20,000 distinct readers' beacons
 * (each from its own address, as a trusted proxy forwards it: one address adds at most 20)
 * spread over both, both stopped with SIGTERM right after the last answer (so most counts are
 * still in memory then) → the article's open_count is exactly 20,000, and so is its daily row.
 */
import { Agent } from 'undici';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { sharedDatabaseUrl } from '../support/shared-database';
import { API_ONLY } from '../support/service';

const READERS = 20_000;
const CONCURRENCY = 32;
let instances: ExtraService[] = [];
afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
});

it('counts 20,000 beacons spread over two instances exactly once each, with nothing lost at SIGTERM', async () => {
  const account = await newAccount();
  const post = await createPost(account.token);
  expect((await api('POST', `/posts/${post.id}/publish`, { token: account.token })).status).toBe(200);
  instances = await Promise.all([
    startExtraService({ ...API_ONLY, TRUSTED_PROXIES: '127.0.0.1' }),
    startExtraService({ ...API_ONLY, TRUSTED_PROXIES: '127.0.0.1' }),
  ]);
  const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
  let next = 0;
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let r = next++; r < READERS; r = next++) {
        const base = instances[r % 2]!.service.baseUrl;
        const res = await fetch(`${base}/api/reader/${post.public_id}/open.gif`, {
          headers: {
            'user-agent': `Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 reader-${r}`,
            'x-forwarded-for': `10.${r >> 16}.${(r >> 8) & 255}.${r & 255}`,
          },
          dispatcher,
        } as RequestInit);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  expect(Object.fromEntries(statuses)).toEqual({ 200: READERS });
  await dispatcher.close();
  const codes = await Promise.all(instances.map((i) => i.service.stop('SIGTERM')));
  instances = [];
  expect(codes).toEqual([0, 0]);

  const after = await api('GET', `/posts/${post.id}`, { token: account.token });
  expect(after.body.open_count).toBe(READERS);
  const client = new pg.Client({ connectionString: await sharedDatabaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ opens: number }>(
      'SELECT sum(opens)::int AS opens FROM reader_daily WHERE post_id = $1',
      [post.id],
    );
    expect(rows[0]!.opens).toBe(READERS);
  } finally {
    await client.end();
  }
});
