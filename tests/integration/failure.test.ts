import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { solidPng } from './media-helpers';
import { cli, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * Database outage: PostgreSQL stopped under a running service → 503 within seconds (clients
 * learn to retry instead of hanging), and service again without a restart when it returns.
 * Uses its own cluster and instance.
 */
describe('database outage', () => {
  const dataDir = tempDataDir('publishing-outage-');
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  let service: RunningService;
  let token: string;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
    service = await startService({ DATA_DIR: dataDir, DATABASE_URL: pg.url });
    const created = await cli({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg.url }, [
      'account',
      'create',
      'outage',
    ]);
    token = (created.json as { token: string }).token;
  });
  afterAll(async () => {
    await service?.stop();
    await pg?.stop();
    removeDataDir(dataDir);
  });

  const me = () =>
    fetch(`${service.baseUrl}/api/v1/author/me`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));

  it('answers 503 service_unavailable quickly while PostgreSQL is down, then recovers by itself', async () => {
    expect((await me()).status).toBe(200);
    await pg.stop();

    const started = Date.now();
    const down = await me();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    const health = await fetch(`${service.baseUrl}/api/health`);
    expect(health.status).toBe(503);
    const write = await fetch(`${service.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 't', markdown: 'm' }),
    });
    expect(write.status).toBe(503);

    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {}, { port: pg.port });
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await me()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
    expect((await fetch(`${service.baseUrl}/api/health`)).status).toBe(200);
  });

  it('SIGTERM lets an in-flight request finish, then exits 0', async () => {
    // The write is held in flight on an image download that answers only after SIGTERM was
    // sent, so the test does not depend on how long a conversion takes on a loaded machine.
    const png = await solidPng(8, 8);
    let release: () => void = () => {};
    let downloadStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (downloadStarted = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const images = createServer((_req, res) => {
      downloadStarted();
      void held.then(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const { port } = images.address() as AddressInfo;
    try {
      const inFlight = fetch(`${service.baseUrl}/api/v1/author/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'In flight', markdown: `![held](http://127.0.0.1:${port}/held.png)` }),
      });
      await started;
      const stopped = service.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      release();
      const res = await inFlight;
      expect(res.status).toBe(201);
      expect((await res.json()).rehost_failed).toBeUndefined();
      const code = await stopped;
      expect(code).toBe(0);
      expect(service.logs.join('')).toMatch(/"msg":"stopped"/);
    } finally {
      images.closeAllConnections();
      images.close();
    }
  });
});
