/**
 * SHUTDOWN_DRAIN_MS: after SIGTERM the instance still serves every request but fails its health
 * check, so a proxy's probe takes it out of rotation before the listener closes; then it stops
 * as usual (exit 0).
 */
import { describe, expect, it } from 'vitest';
import { sharedDatabaseUrl } from '../support/shared-database';
import { startService } from '../support/service';

describe('draining before a stop', () => {
  it('fails /api/health, keeps serving, then exits 0', async () => {
    const service = await startService({ DATABASE_URL: await sharedDatabaseUrl(), SHUTDOWN_DRAIN_MS: '3000' });
    expect((await fetch(`${service.baseUrl}/api/health`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => service.process.once('exit', resolve));
    service.process.kill('SIGTERM');
    // The signal is handled within the drain (3 s): the health check turns 503 while the rest works.
    let status = 200;
    for (let n = 0; n < 50 && status === 200; n++) {
      status = (await fetch(`${service.baseUrl}/api/health`)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(503);
    // Requests other than the health check are still answered while draining.
    expect((await fetch(`${service.baseUrl}/api/v1/author/openapi.json`)).status).toBe(200);
    expect(await exited).toBe(0);
  });

  it('without it (the default), the health check stays 200 until the listener closes', async () => {
    const service = await startService({ DATABASE_URL: await sharedDatabaseUrl() });
    const exited = new Promise<number | null>((resolve) => service.process.once('exit', resolve));
    service.process.kill('SIGTERM');
    // Until the listener closes, the health check never reports draining.
    const seen = new Set<number>();
    for (;;) {
      try {
        seen.add((await fetch(`${service.baseUrl}/api/health`)).status);
      } catch {
        break;
      }
    }
    expect([...seen].filter((s) => s !== 200)).toEqual([]);
    expect(await exited).toBe(0);
  });
});
