import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../server/foundation/concurrency-limit';
import { ByteBudget, claimDownload } from '../../../server/media/download-budget';
import type { Connector } from '../../../server/media/fetch/types';

/** A connector that opens no socket: answers with `chunks` and an optional Content-Length. */
function stub(chunks: number[], contentLength?: number): Connector {
  return async () => ({
    status: 200,
    headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) },
    body: (async function* () {
      for (const n of chunks) yield new Uint8Array(n);
    })(),
    dispose: async () => undefined,
  });
}

async function read(connector: Connector): Promise<number> {
  const response = await connector({} as never);
  let total = 0;
  for await (const chunk of response.body) total += chunk.byteLength;
  return total;
}

describe('claimDownload', () => {
  it('claims the declared Content-Length when the answer arrives, and refuses it when the write has less left', async () => {
    const budget = new ByteBudget(100);
    const first = claimDownload(budget, stub([10], 60));
    const response = await first.connector({} as never);
    expect(budget.spent).toBe(60);
    const second = claimDownload(budget, stub([50], 50));
    await expect(second.connector({} as never)).rejects.toThrow(/budget/);
    expect(second.exceeded).toBe(true);
    for await (const _ of response.body) void _;
    first.settle();
    // The body was shorter than declared: only what arrived stays counted.
    expect(budget.spent).toBe(10);
  });

  it('without a Content-Length, claims every chunk before it is kept and stops at the first one past the budget', async () => {
    const budget = new ByteBudget(100);
    const claim = claimDownload(budget, stub([40, 40, 40]));
    await expect(read(claim.connector)).rejects.toThrow(/budget/);
    expect(claim.exceeded).toBe(true);
    claim.settle();
    expect(budget.spent).toBe(80);
  });

  it('bytes received stay counted after the download (a file then refused as not an image still spent them)', async () => {
    const budget = new ByteBudget(100);
    const claim = claimDownload(budget, stub([30, 30]));
    expect(await read(claim.connector)).toBe(60);
    claim.settle();
    expect(budget.spent).toBe(60);
    expect(budget.left).toBe(40);
    expect(claim.exceeded).toBe(false);
  });
});

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once and the waiting ones in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      limit.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(i);
            releases[i] = () => resolve(i);
          }),
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(limit.running).toBe(2);
    expect(limit.queued).toBe(3);
    releases[1]!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    releases[0]!();
    releases[2]!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2, 3, 4]);
    releases[3]!();
    releases[4]!();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(limit.running).toBe(0);
  });
});
