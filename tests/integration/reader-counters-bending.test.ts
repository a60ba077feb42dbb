/**
 * What one dishonest client can do to the reader counters, over HTTP against a running
 * instance: many user agents from one address add at most READERS_PER_ADDRESS readers to an
 * article's counters per day; beacons for ids that name no published article store nothing; a
 * beacon loaded by another page (another article's, another site's) counts nothing.
 * The instance is stopped with SIGTERM before reading, which flushes what it holds.
 */
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { API_ONLY, cli, startService, type RunningService } from '../support/service';
import { freshDatabaseUrl } from './media-helpers';

let instance: RunningService | undefined;
afterAll(async () => {
  await instance?.stop();
});

/** The instance has a database of its own: every reader row in it is this test's. */
let databaseUrl: string;

async function call<T>(
  method: string,
  path: string,
  token: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${instance!.baseUrl}/api/v1/author${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  return { status: res.status, body: (await res.json()) as T };
}

type Post = { id: string; public_id: string; canonical_path: string };

async function publishedArticle(token: string): Promise<Post> {
  const created = await call<Post>('POST', '/posts', token, { title: 'Counted', markdown: 'Body.' });
  expect(created.status).toBe(201);
  const published = await call<Post>('POST', `/posts/${created.body.id}/publish`, token);
  expect(published.status).toBe(200);
  return published.body;
}

async function beacon(publicId: string, kind: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${instance!.baseUrl}/api/reader/${publicId}/${kind}.gif`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/gif');
  await res.arrayBuffer();
}

async function storedRows(): Promise<{ seen: number; sources: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ seen: number; sources: number }>(
      'SELECT (SELECT count(*) FROM reader_seen)::int AS seen, (SELECT count(*) FROM reader_sources)::int AS sources',
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}

const browser = (r: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.${r} Safari/537.36`;

it('one address with 300 user agents adds READERS_PER_ADDRESS readers; made-up ids and planted beacons add nothing', async () => {
  databaseUrl = await freshDatabaseUrl('bending');
  const env = { DATABASE_URL: databaseUrl, READERS_PER_ADDRESS: '5', LOG_LEVEL: 'silent' };
  instance = await startService({ ...API_ONLY, ...env });
  const created = await cli({ ...instance.env }, ['account', 'create', 'bender', '--limit', 'publish_per_min=100']);
  expect(created.code).toBe(0);
  const token = (created.json as { token: string }).token;
  const target = await publishedArticle(token);
  const other = await publishedArticle(token);
  const before = await storedRows();
  expect(before).toEqual({ seen: 0, sources: 0 });

  // 300 user agents from this one address, each loading open, read and complete.
  for (let r = 0; r < 300; r++)
    for (const kind of ['open', 'read', 'complete']) await beacon(target.public_id, kind, { 'user-agent': browser(r) });

  // Beacons on another article's page (Referer), or on another site's (Sec-Fetch-Site): someone
  // planted the target's beacon there. They get their GIF and count nothing.
  const otherPage = `${instance.baseUrl}${other.canonical_path}`;
  await beacon(target.public_id, 'open', { 'user-agent': browser(1000), referer: otherPage });
  await beacon(target.public_id, 'open', { 'user-agent': browser(1001), 'sec-fetch-site': 'cross-site' });

  // 2,000 made-up public ids.
  for (let i = 0; i < 2000; i++) await beacon(`zz${String(i).padStart(8, '0')}`, 'open', { 'user-agent': browser(i) });

  // SIGTERM flushes what the instance holds; a second instance on the same database reads the counts.
  expect(await instance.stop('SIGTERM')).toBe(0);
  instance = await startService({ ...API_ONLY, ...env });
  const read = await call<{ open_count: number; read_count: number; complete_count: number }>(
    'GET',
    `/posts/${target.id}`,
    token,
  );
  expect([read.body.open_count, read.body.read_count, read.body.complete_count]).toEqual([5, 5, 5]);
  // All that is stored: the target's 15 readers (5 of each kind) and their 3 sources. The 2,000
  // made-up ids and the planted beacons left nothing.
  expect(await storedRows()).toEqual({ seen: 15, sources: 3 });
});
