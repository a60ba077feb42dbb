import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../server/foundation/concurrency-limit';
import { GIF_WAITING_PER_SLOT, createMediaWork } from '../../../server/media/work';

/** A task that runs until `release` is called; `order` records when each one ran. */
function gate(order: string[], name: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    release,
    task: async () => {
      order.push(name);
      await released;
      return name;
    },
  };
}

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks, the others in arrival order', async () => {
    const order: string[] = [];
    const limit = new ConcurrencyLimit(1);
    const gates = ['a', 'b', 'c'].map((n) => gate(order, n));
    const results = gates.map((g) => limit.run(g.task));
    await Promise.resolve();
    expect([limit.running, limit.queued]).toEqual([1, 2]);
    for (const g of gates) g.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('with maxWaiting, refuses the next waiter at once and keeps those already waiting', async () => {
    const order: string[] = [];
    const limit = new ConcurrencyLimit(1, { maxWaiting: 2, full: () => new Error('backed up') });
    const gates = ['a', 'b', 'c', 'd'].map((n) => gate(order, n));
    const [a, b, c] = gates.slice(0, 3).map((g) => limit.run(g.task));
    await expect(limit.run(gates[3]!.task)).rejects.toThrow('backed up');
    expect([limit.running, limit.queued]).toEqual([1, 2]);
    // Once one has run, there is room again.
    gates[0]!.release();
    expect(await a).toBe('a');
    const e = gate(order, 'e');
    const later = limit.run(e.task);
    for (const g of [gates[1]!, gates[2]!, e]) g.release();
    expect(await Promise.all([b, c, later])).toEqual(['b', 'c', 'e']);
    expect(order).toEqual(['a', 'b', 'c', 'e']);
  });

  it("is how the process's GIF conversions wait: a few per slot, then 503", async () => {
    const work = createMediaWork({ downloadsInFlight: 2, downloadMemoryBytes: 1024, gifConversionsInFlight: 2 });
    const order: string[] = [];
    const running = Array.from({ length: 2 + 2 * GIF_WAITING_PER_SLOT }, (_, i) => gate(order, `gif ${i}`));
    const results = running.map((g) => work.gifSlots.run(g.task));
    await expect(work.gifSlots.run(async () => 'one more')).rejects.toMatchObject({ kind: 'unavailable' });
    for (const g of running) g.release();
    expect(await Promise.all(results)).toHaveLength(running.length);
  });
});
