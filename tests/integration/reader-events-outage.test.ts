import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { checkResponse } from '../support/conformance';
import { API_ONLY, cli, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * The operator route while PostgreSQL is down: 503 service_unavailable (send the batch again),
 * nothing applied, and the same batch applies once the database is back, without a restart.
 * Uses its own cluster and instance, like failure.test.ts.
 */
const TOKEN = 'reader-events-outage-token';
const dataDir = tempDataDir('publishing-reader-outage-');
let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
let service: RunningService;
let token: string;

beforeAll(async () => {
  pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
  service = await startService({ ...API_ONLY, DATA_DIR: dataDir, DATABASE_URL: pg.url, READER_EVENTS_TOKEN: TOKEN });
  const created = await cli({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg.url }, [
    'account',
    'create',
    'reader-outage',
  ]);
  token = (created.json as { token: string }).token;
});
afterAll(async () => {
  await service?.stop();
  await pg?.stop();
  removeDataDir(dataDir);
});

const author = (method: string, route: string, body?: unknown) =>
  fetch(`${service.baseUrl}/api/v1/author${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

const sendBatch = (batch: unknown) =>
  fetch(`${service.baseUrl}/api/reader-events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(batch),
  }).then(async (r) => {
    const text = await r.text();
    // Every answer, the 503 included, as the OpenAPI document declares it.
    await checkResponse({ method: 'POST', path: '/api/reader-events', status: r.status, headers: r.headers, text });
    return { status: r.status, body: JSON.parse(text) };
  });

it('answers 503 service_unavailable while PostgreSQL is down and applies the same batch once it is back', async () => {
  const post = await author('POST', '/posts', { title: 'Liked', markdown: 'Body.' });
  expect(post.status).toBe(201);
  const id = post.body.id as string;
  expect((await sendBatch({ batch_id: 'before', events: [{ post_id: id, kind: 'like' }] })).status).toBe(200);

  await pg.stop();
  const batch = { batch_id: 'during-outage', events: [{ post_id: id, kind: 'like', count: 4 }] };
  const started = Date.now();
  const down = await sendBatch(batch);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });

  pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {}, { port: pg.port });
  let again = down;
  for (let i = 0; i < 40 && again.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 250));
    again = await sendBatch(batch);
  }
  expect(again).toEqual({ status: 200, body: { applied: 1, unknown_posts: [] } });
  // Applied once: the refused attempt stored nothing, and a replay adds nothing.
  expect((await sendBatch(batch)).body).toEqual({ applied: 1, unknown_posts: [] });
  expect((await author('GET', `/posts/${id}`)).body.like_count).toBe(5);
});
