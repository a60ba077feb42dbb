import { once } from 'node:events';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { currentThreadId, threadCpuMs, threadNice } from '../../../server/content/worker-thread';

/**
 * The conversion workers' view of themselves through /proc (Linux): a worker lowers its own
 * priority, not the process's, and its CPU time can be read from outside while it runs.
 */
const onLinux = process.platform === 'linux';

async function busyWorker(nice: number, cpuMs: number) {
  const worker = new Worker(path.join(import.meta.dirname, 'support/busy-worker.mjs'), {
    workerData: { nice, cpuMs },
  });
  const [report] = (await once(worker, 'message')) as [{ tid: number | null; before: number | null }];
  return {
    ...report,
    stop: async () => {
      worker.postMessage('stop');
      await once(worker, 'exit');
    },
  };
}

describe.runIf(onLinux)('worker threads (Linux /proc)', () => {
  it('lowers the priority of the worker thread only: the event loop keeps its own', async () => {
    const mainNice = threadNice(currentThreadId()!);
    const worker = await busyWorker(10, 10);
    try {
      expect(worker.tid).not.toBe(process.pid);
      expect(threadNice(worker.tid!)).toBe(Math.max(10, mainNice!));
      expect(threadNice(currentThreadId()!)).toBe(mainNice);
    } finally {
      await worker.stop();
    }
  });

  it('leaves the priority alone when asked for 0', async () => {
    const mainNice = threadNice(currentThreadId()!);
    const worker = await busyWorker(0, 10);
    try {
      expect(threadNice(worker.tid!)).toBe(mainNice);
    } finally {
      await worker.stop();
    }
  });

  it('reads the CPU time a worker thread has used, which grows while it computes', async () => {
    // The worker computes until /proc, read from inside it, shows 100 ms of its CPU time: read here,
    // from outside, the thread has at least that, and no more than the 10 s it may take.
    const worker = await busyWorker(0, 100);
    try {
      const after = threadCpuMs(worker.tid!)!;
      expect(after - worker.before!).toBeGreaterThanOrEqual(100);
      expect(after - worker.before!).toBeLessThanOrEqual(10_000);
    } finally {
      await worker.stop();
    }
  });

  it('answers null for a thread that does not exist', () => {
    expect(threadCpuMs(2 ** 30)).toBeNull();
    expect(threadNice(2 ** 30)).toBeNull();
  });
});
