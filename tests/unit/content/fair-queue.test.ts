import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairQueue, FairQueueFullError } from '../../../server/content/fair-queue';

/** A job the test finishes by hand, so ordering is decided by the queue and not by timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Jobs named by the test, each held at its gate until opened; `started` records their start order. */
function gatedJobs() {
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  const job = (name: string) => () => {
    started.push(name);
    const g = gate();
    gates.set(name, g);
    return g.opened.then(() => name);
  };
  return { started, gates, job };
}

describe('FairQueue: per-account FIFO, round-robin, bounded', () => {
  it("one account's backlog delays another account's single job by at most one of its jobs", async () => {
    const queue = new FairQueue({ inFlight: 1, waitingPerKey: 10, waitingTotal: 100 });
    const { started, gates, job } = gatedJobs();
    const results = ['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => queue.enqueue('A', job(n)).result);
    const single = queue.enqueue('B', job('b1')).result;
    expect(queue.size).toBe(5);
    // Finish whatever runs, one at a time, until B's job has started.
    while (!started.includes('b1')) {
      gates.get(started.at(-1)!)!.open();
      await new Promise((r) => setImmediate(r));
    }
    expect(started).toEqual(['a1', 'a2', 'b1']);
    gates.get('b1')!.open();
    await expect(single).resolves.toBe('b1');
    for (const name of ['a3', 'a4', 'a5']) {
      while (!gates.has(name)) await new Promise((r) => setImmediate(r));
      gates.get(name)!.open();
    }
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('with inFlightPerKey below inFlight, a busy account leaves a slot free: another account starts at once', () => {
    const queue = new FairQueue({ inFlight: 2, waitingPerKey: 10, waitingTotal: 100, inFlightPerKey: 1 });
    const started: string[] = [];
    const never = (name: string) => () => {
      started.push(name);
      return new Promise<void>(() => {});
    };
    for (const n of ['a1', 'a2', 'a3']) queue.enqueue('A', never(n));
    expect(started).toEqual(['a1']);
    queue.enqueue('B', never('b1'));
    expect(started).toEqual(['a1', 'b1']);
    expect(queue.size).toBe(2);
  });

  it('never runs more than inFlight jobs at once', async () => {
    const queue = new FairQueue({ inFlight: 2, waitingPerKey: 10, waitingTotal: 100 });
    let running = 0;
    let peak = 0;
    const job = () => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
    };
    await Promise.all(['A', 'B', 'C', 'A', 'B', 'C', 'A'].map((key) => queue.enqueue(key, job()).result));
    expect(peak).toBe(2);
    expect(queue.size).toBe(0);
  });

  it("refuses at once past one account's bound, while other accounts are still admitted", () => {
    const queue = new FairQueue({ inFlight: 1, waitingPerKey: 2, waitingTotal: 3 });
    const never = () => new Promise<void>(() => {});
    queue.enqueue('A', never); // running
    queue.enqueue('A', never);
    queue.enqueue('A', never);
    expect(() => queue.enqueue('A', never)).toThrow(FairQueueFullError);
    expect(() => queue.enqueue('A', never)).toThrow(expect.objectContaining({ scope: 'account' }));
    queue.enqueue('B', never);
    expect(() => queue.enqueue('C', never)).toThrow(expect.objectContaining({ scope: 'total' }));
    expect(queue.size).toBe(3);
  });

  it('refusesAnyKey is true exactly when wouldRefuse refuses some key, one never seen included', async () => {
    const KEYS = ['A', 'B', 'C', 'D'];
    const NEVER_SEEN = 'Z';
    const seen = { some: 0, none: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }).chain((inFlight) =>
          fc.record({
            inFlight: fc.constant(inFlight),
            inFlightPerKey: fc.integer({ min: 1, max: inFlight }),
            waitingPerKey: fc.integer({ min: 0, max: 3 }),
            waitingTotal: fc.integer({ min: 0, max: 8 }),
          }),
        ),
        fc.array(fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom('cancel', 'finish')), { maxLength: 24 }),
        async (limits, steps) => {
          const queue = new FairQueue(limits);
          const cancels: (() => boolean)[] = [];
          const running: (() => void)[] = [];
          const job = () => new Promise<void>((resolve) => running.push(resolve));
          for (const step of steps) {
            if (step === 'cancel') cancels.shift()?.();
            else if (step === 'finish') running.shift()?.();
            else if (!queue.wouldRefuse(step)) cancels.push(queue.enqueue(step, job).cancel);
            for (let i = 0; i < 5; i++) await Promise.resolve(); // the queue starts the next job
          }
          const some = [...KEYS, NEVER_SEEN].some((key) => queue.wouldRefuse(key));
          expect(queue.refusesAnyKey()).toBe(some);
          seen[some ? 'some' : 'none']++;
        },
      ),
      { numRuns: 400 },
    );
    // Both answers were reached, so the property was tested on each.
    expect(seen.some).toBeGreaterThan(20);
    expect(seen.none).toBeGreaterThan(20);
  });

  it('a waiting job that is cancelled never runs and frees its place', async () => {
    const queue = new FairQueue({ inFlight: 1, waitingPerKey: 1, waitingTotal: 1 });
    const first = gate();
    const ran: string[] = [];
    const running = queue.enqueue('A', () => first.opened.then(() => ran.push('first')));
    const waiting = queue.enqueue('A', async () => void ran.push('cancelled'));
    expect(waiting.cancel()).toBe(true);
    expect(queue.size).toBe(0);
    const next = queue.enqueue('A', async () => void ran.push('next'));
    first.open();
    await running.result;
    await next.result;
    expect(ran).toEqual(['first', 'next']);
    expect(running.cancel()).toBe(false);
  });

  it("spare jobs take only idle workers, past the account's limit, and another account's job goes first", async () => {
    const queue = new FairQueue({ inFlight: 2, waitingPerKey: 10, waitingTotal: 100, inFlightPerKey: 1 });
    const { started, gates, job } = gatedJobs();
    const finish = async (name: string) => {
      gates.get(name)!.open();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    const document = queue.enqueue('A', job('a-document'));
    // A's limit is one job at a time, but a worker is idle: A's first spare job takes it.
    const parts = ['a-part1', 'a-part2', 'a-part3'].map((name) => queue.enqueueSpare('A', job(name)));
    expect(started).toEqual(['a-document', 'a-part1']);
    // Another account's job waits for one spare job, not for the document or its other parts.
    const other = queue.enqueue('B', job('b-document'));
    expect(queue.size).toBe(1);
    await finish('a-part1');
    expect(started).toEqual(['a-document', 'a-part1', 'b-document']);
    await finish('b-document');
    expect(started).toEqual(['a-document', 'a-part1', 'b-document', 'a-part2']);
    // A dropped spare job never runs.
    expect(parts[2]!.cancel()).toBe(true);
    await finish('a-part2');
    await finish('a-document');
    expect(started).toEqual(['a-document', 'a-part1', 'b-document', 'a-part2']);
    expect(await Promise.all([document.result, other.result, parts[0]!.result, parts[1]!.result])).toEqual([
      'a-document',
      'b-document',
      'a-part1',
      'a-part2',
    ]);
  });

  it('never runs spare jobs past inFlight, nor while a waiting job may start', () => {
    const queue = new FairQueue({ inFlight: 2, waitingPerKey: 10, waitingTotal: 100 });
    const started: string[] = [];
    const never = (name: string) => () => {
      started.push(name);
      return new Promise<void>(() => {});
    };
    queue.enqueue('A', never('a1'));
    queue.enqueue('B', never('b1'));
    queue.enqueueSpare('A', never('a-part'));
    queue.enqueue('C', never('c1'));
    expect(started).toEqual(['a1', 'b1']);
    expect(queue.size).toBe(1);
  });
});
