import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadCpuMs, threadNice } from '../../server/content/worker-thread';
import { newAccount, serviceEnv } from '../support/api';
import { API_ONLY, startService, type RunningService } from '../support/service';

/**
 * Large documents convert below the event loop's priority, and their budget counts the CPU time
 * of the worker, not wall-clock time (server/content/pool.ts, worker-thread.ts). Observed from
 * outside, as an operator would: the service's threads in /proc, and a process stopped by SIGSTOP
 * (wall-clock time passes, CPU time does not).
 */
const NICE = 7;

/** Thread ids of `pid` (its tasks in /proc). */
const threadsOf = (pid: number) => readdirSync(`/proc/${pid}/task`).map(Number);

const PROSE =
  'Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, sed do [eiusmod](https://example.com/x) tempor incididunt ut labore et dolore magna aliqua. '.repeat(
    8,
  ) + '\n\n';

describe.runIf(process.platform === 'linux')('conversion priority and CPU budget', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({ ...API_ONLY, DATA_DIR: serviceEnv().DATA_DIR, CONTENT_WORKER_NICE: String(NICE) });
  });
  afterAll(async () => {
    await service?.stop();
  });

  const write = (token: string, markdown: string) =>
    fetch(`${service.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Long read', markdown }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));

  it('converts a large document on a thread below the event loop, which keeps its priority', async () => {
    const pid = service.process.pid!;
    const { token } = await newAccount();
    const small = await write(token, 'A short article.');
    expect(small.status).toBe(201);
    expect(threadsOf(pid).some((tid) => threadNice(tid, pid) === NICE)).toBe(false);
    const large = await write(token, PROSE.repeat(Math.floor(100_000 / PROSE.length)));
    expect(large.status).toBe(201);
    // The background lane's worker stays a minute after its task.
    expect(threadsOf(pid).filter((tid) => threadNice(tid, pid) === NICE)).toHaveLength(1);
    expect(threadNice(pid, pid)).toBe(0);
  });

  it('does not refuse a document whose conversion was held up longer than its budget without using it', async () => {
    const pid = service.process.pid!;
    const { token } = await newAccount();
    const markdown = PROSE.repeat(Math.floor(500_000 / PROSE.length)); // ~1 s of CPU, a budget of 6 s
    const budgetMs = 1000 + Math.ceil((10_000 * Buffer.byteLength(markdown)) / 1_000_000);
    const pending = write(token, markdown);
    // Wait until a background worker is converting it: its CPU time grows.
    const seen = new Map<number, number>();
    let converting: number | undefined;
    for (let i = 0; i < 500 && converting === undefined; i++) {
      for (const tid of threadsOf(pid).filter((t) => threadNice(t, pid) === NICE)) {
        const cpu = threadCpuMs(tid, pid) ?? 0;
        if (seen.has(tid) && cpu > seen.get(tid)!) converting = tid;
        seen.set(tid, cpu);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(converting, 'the conversion was never seen running').toBeDefined();
    // Stopped for longer than the whole budget: wall-clock time runs, the worker's CPU time does not.
    process.kill(pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, budgetMs + 500));
    process.kill(pid, 'SIGCONT');
    const result = await pending;
    expect(result.status, JSON.stringify(result.body)).toBe(201);
  });
});
