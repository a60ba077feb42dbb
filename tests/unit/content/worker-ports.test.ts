/**
 * The conversion workers free each task's `started` port (server/content/pool.ts WORKER_WAIT):
 * with piscina's default wait between tasks the worker's event loop never turns, and Node never
 * finishes closing the ports, one per conversion. Shown first with that default, then with ours.
 */
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { describe, expect, it } from 'vitest';
import { WORKER_WAIT } from '../../../server/content/pool';

const TASKS = 300;

/** MessagePorts a worker still holds after TASKS tasks, each handed a port it closes. */
async function portsLeftAfterTasks(wait: object): Promise<number> {
  const pool = new Piscina({
    filename: path.join(import.meta.dirname, 'support/port-worker.mjs'),
    minThreads: 1,
    maxThreads: 1,
    ...wait,
  });
  try {
    for (let i = 0; i < TASKS; i++) {
      // As pool.ts does: the task's port goes to the worker, the pool closes its end after the task.
      const { port1, port2 } = new MessageChannel();
      port1.on('message', () => {});
      await pool.run({ started: port2 }, { transferList: [port2] });
      port1.close();
    }
    // A moment for the worker's loop, where it may turn, to finish the closes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return (await pool.run({ count: true })) as number;
  } finally {
    await pool.destroy();
  }
}

describe('conversion workers and the ports of their tasks', () => {
  it("keep every closed port with piscina's default wait (the fault)", async () => {
    expect(await portsLeftAfterTasks({})).toBeGreaterThanOrEqual(TASKS);
  });

  it('free them with the wait the pool uses', async () => {
    expect(await portsLeftAfterTasks(WORKER_WAIT)).toBeLessThan(10);
  });
});
