import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../../server/media/download-budget';
import { DownloadMemoryFullError, holdingDownload } from '../../../server/media/download-memory';
import type { Connector } from '../../../server/media/fetch/types';

/** A connector that opens no socket: answers with `chunks` and an optional Content-Length. */
function stub(chunks: number[], contentLength?: number): Connector {
  return async () => ({
    status: 200,
    headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) },
    body: (async function* () {
      for (const n of chunks) {
        await new Promise((r) => setImmediate(r));
        yield new Uint8Array(n);
      }
    })(),
    dispose: async () => undefined,
  });
}

/** What safeFetch does with a response: reads the whole body into memory. */
async function readAll(connector: Connector): Promise<number> {
  const response = await connector({} as never);
  let total = 0;
  for await (const chunk of response.body) total += chunk.byteLength;
  return total;
}

describe('holdingDownload (the process-wide download memory)', () => {
  it('holds a file’s bytes until its caller is done with them, and refuses a download that would pass the budget as unavailable', async () => {
    const budget = new ByteBudget(100);
    let finishUse!: () => void;
    const used = new Promise<void>((r) => (finishUse = r));
    const first = holdingDownload(stub([30, 30], 60), readAll, async (n) => (await used, n), budget);
    await new Promise((r) => setTimeout(r, 20));
    expect(budget.spent).toBe(60);
    const second = holdingDownload(stub([50], 50), readAll, async (n) => n, budget);
    await expect(second).rejects.toBeInstanceOf(DownloadMemoryFullError);
    await expect(second).rejects.toMatchObject({ kind: 'unavailable' });
    // Still held: the first file is being decoded.
    expect(budget.spent).toBe(60);
    finishUse();
    expect(await first).toBe(60);
    expect(budget.spent).toBe(0);
    // Given back: the same download now fits.
    expect(await holdingDownload(stub([50], 50), readAll, async (n) => n, budget)).toBe(50);
    expect(budget.spent).toBe(0);
  });

  it('counts a body without Content-Length chunk by chunk, and a failing caller still gives its bytes back', async () => {
    const budget = new ByteBudget(100);
    await expect(holdingDownload(stub([40, 40, 40]), readAll, async (n) => n, budget)).rejects.toBeInstanceOf(
      DownloadMemoryFullError,
    );
    expect(budget.spent).toBe(0);
    await expect(
      holdingDownload(stub([40], 40), readAll, async () => Promise.reject(new Error('not an image')), budget),
    ).rejects.toThrow('not an image');
    expect(budget.spent).toBe(0);
  });

  it('never holds more than the budget, whatever downloads run at once, and holds nothing once they end', async () => {
    const download = fc.record({
      chunks: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
      declared: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 150 }), fc.array(download, { maxLength: 8 }), async (limit, all) => {
        const budget = new ByteBudget(limit);
        let peak = 0;
        const watch =
          (connector: Connector): Connector =>
          async (request) => {
            const response = await connector(request);
            const body = response.body;
            return {
              ...response,
              body: (async function* () {
                for await (const chunk of body) {
                  peak = Math.max(peak, budget.spent);
                  yield chunk;
                }
              })(),
            };
          };
        const results = await Promise.allSettled(
          all.map(({ chunks, declared }) =>
            holdingDownload(
              stub(chunks, declared ? chunks.reduce((a, b) => a + b, 0) : undefined),
              (connector) => readAll(watch(connector)),
              async (n) => {
                peak = Math.max(peak, budget.spent);
                await new Promise((r) => setImmediate(r));
                return n;
              },
              budget,
            ),
          ),
        );
        expect(peak).toBeLessThanOrEqual(limit);
        expect(budget.spent).toBe(0);
        for (const [k, r] of results.entries()) {
          const size = all[k]!.chunks.reduce((a, b) => a + b, 0);
          if (r.status === 'fulfilled') expect(r.value).toBe(size);
          else expect(r.reason).toBeInstanceOf(DownloadMemoryFullError);
        }
        // A download alone always fits when it is within the budget.
        if (all.length === 1 && all[0]!.chunks.reduce((a, b) => a + b, 0) <= limit)
          expect(results[0]!.status).toBe('fulfilled');
      }),
      { numRuns: 200 },
    );
  });
});
