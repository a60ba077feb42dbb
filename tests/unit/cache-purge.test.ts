/**
 * The purge queue against stub caches on loopback: what it sends, how it retries, what it
 * reports, and that the caller is never made to wait or to handle a failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPurgeQueue, type PurgeOutcome } from '../../server/runtime/cache-purge';

interface Stub {
  url: string;
  requests: { method: string; path: string; at: number }[];
  close(): Promise<void>;
}

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

/** A cache that answers the n-th request with `answer(n)` (a status, or 'hang' / 'reset'). */
async function stubCache(answer: (n: number) => number | 'hang' | 'reset'): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method!, path: req.url!, at: Date.now() });
    const a = answer(requests.length);
    if (a === 'hang') return;
    if (a === 'reset') return req.socket.destroy();
    res.statusCode = a;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: Stub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  stubs.push(stub);
  return stub;
}

function queueFor(caches: string[], extra: Partial<Parameters<typeof createPurgeQueue>[0]> = {}) {
  const outcomes: PurgeOutcome[] = [];
  const queue = createPurgeQueue({
    caches,
    onOutcome: (o) => outcomes.push(o),
    baseDelayMs: 20,
    // Generous: the first fetch of a process loads its HTTP client, slowly on a busy machine.
    timeoutMs: 2000,
    repeatAfterMs: 0,
    ...extra,
  });
  return { queue, outcomes };
}

describe('cache purge queue', () => {
  it('sends PURGE <path> to every cache and reports each outcome', async () => {
    const a = await stubCache(() => 200);
    const b = await stubCache(() => 404);
    const { queue, outcomes } = queueFor([a.url, `${b.url}/prefix/`]);
    queue.purge(['/hello-abcdefghij', '/api/media/0b5f2d1e-8c1a-4c55-9a57-2f4c7a2d1e10']);
    await queue.settled(5000);
    expect(a.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'PURGE /api/media/0b5f2d1e-8c1a-4c55-9a57-2f4c7a2d1e10',
      'PURGE /hello-abcdefghij',
    ]);
    expect(b.requests.map((r) => r.path).sort()).toEqual([
      '/prefix/api/media/0b5f2d1e-8c1a-4c55-9a57-2f4c7a2d1e10',
      '/prefix/hello-abcdefghij',
    ]);
    expect(outcomes.map((o) => `${o.cache} ${o.result} ${o.attempts}`).sort()).toEqual(
      [
        `${new URL(a.url).host} purged 1`,
        `${new URL(a.url).host} purged 1`,
        `${new URL(b.url).host} not_cached 1`,
        `${new URL(b.url).host} not_cached 1`,
      ].sort(),
    );
  });

  it('retries 5xx, resets and timeouts with growing delays, then succeeds', async () => {
    const cache = await stubCache((n) => (n === 1 ? 503 : n === 2 ? 'reset' : n === 3 ? 'hang' : 200));
    const { queue, outcomes } = queueFor([cache.url], { timeoutMs: 300 });
    queue.purge(['/a-abcdefghij']);
    await queue.settled(5000);
    expect(outcomes).toMatchObject([{ result: 'purged', attempts: 4, status: 200 }]);
    const gaps = cache.requests.slice(1).map((r, i) => r.at - cache.requests[i]!.at);
    // 20 ms, 40 ms, then the 300 ms timeout of the hung attempt plus 80 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[1]).toBeGreaterThanOrEqual(38);
    expect(gaps[2]).toBeGreaterThanOrEqual(370);
  });

  it('gives up after the bounded number of attempts and reports failed', async () => {
    const cache = await stubCache(() => 502);
    const { queue, outcomes } = queueFor([cache.url], { attempts: 3 });
    queue.purge(['/a-abcdefghij']);
    await queue.settled(5000);
    expect(cache.requests).toHaveLength(3);
    expect(outcomes).toMatchObject([{ result: 'failed', attempts: 3, status: 502 }]);
  });

  it('does not retry a cache that refuses PURGE (405), and reports it failed', async () => {
    const cache = await stubCache(() => 405);
    const { queue, outcomes } = queueFor([cache.url]);
    queue.purge(['/a-abcdefghij']);
    await queue.settled(5000);
    expect(cache.requests).toHaveLength(1);
    expect(outcomes).toMatchObject([{ result: 'failed', attempts: 1, status: 405 }]);
  });

  it('never throws or waits in the caller when the cache is down or the reporter throws', async () => {
    const down = await stubCache(() => 200);
    await down.close();
    const outcomes: PurgeOutcome[] = [];
    const queue = createPurgeQueue({
      caches: [down.url],
      onOutcome: (o) => {
        outcomes.push(o);
        throw new Error('reporter broke');
      },
      baseDelayMs: 10,
      attempts: 2,
      repeatAfterMs: 0,
    });
    const started = performance.now();
    expect(() => queue.purge(['/a-abcdefghij'])).not.toThrow();
    const scheduling = performance.now() - started;
    await queue.settled(5000);
    expect(outcomes).toMatchObject([{ result: 'failed', attempts: 2, error: 'ECONNREFUSED' }]);
    // Scheduling only: the connection attempts happen after purge() returned.
    expect(scheduling).toBeLessThan(outcomes[0]!.ms + 1);
  });

  it('purges once more after the repeat delay (a read in flight at commit may refill the cache)', async () => {
    const cache = await stubCache(() => 200);
    const { queue, outcomes } = queueFor([cache.url], { repeatAfterMs: 100 });
    const committedAt = Date.now();
    queue.purge(['/a-abcdefghij']);
    await queue.settled(5000);
    expect(cache.requests).toHaveLength(2);
    // The repeat is timed from the commit (purge()), not from when the first purge arrived: on a
    // busy machine the first may arrive late, and the two closer together than the delay.
    expect(cache.requests[1]!.at - committedAt).toBeGreaterThanOrEqual(99);
    expect(outcomes.map((o) => o.result)).toEqual(['purged', 'purged']);
  });

  it('drops purges beyond the pending bound and says so', async () => {
    const cache = await stubCache(() => 'hang');
    const { queue, outcomes } = queueFor([cache.url], { maxPending: 2, attempts: 1, timeoutMs: 200 });
    queue.purge(['/a-abcdefghij', '/b-abcdefghij', '/c-abcdefghij']);
    await queue.settled(5000);
    expect(outcomes.map((o) => `${o.path} ${o.result}`).sort()).toEqual([
      '/a-abcdefghij failed',
      '/b-abcdefghij failed',
      '/c-abcdefghij dropped',
    ]);
  });

  it('does nothing without caches', async () => {
    const { queue, outcomes } = queueFor([]);
    queue.purge(['/a-abcdefghij']);
    await queue.settled(100);
    expect(outcomes).toEqual([]);
  });
});
