/**
 * A conversion's CPU time against its budget (pool.ts), over every thread that works on it: the
 * worker that converts the document, and the workers that parse parts of it meanwhile
 * (parallel-parse.ts). The budget is the document's however many threads share it; a thread's
 * time is read from /proc while it works, and reported by the thread itself when it is done.
 *
 * The watch looks when the budget would be spent if every thread working now went on at full
 * speed, and again when what is left would be; past the budget, or past the wall-clock ceiling,
 * it calls `spent` once. Where a thread's CPU time is unknown (no /proc), the wall-clock time
 * since the conversion started stands for it, as a budget in wall-clock time.
 */
import type { WorkerStarted } from './task';
import { threadCpuMs } from './worker-thread';

/** One thread's share of the conversion, from its `started` on. */
export interface ThreadShare {
  started(worker: WorkerStarted): void;
  /** The thread is done, having used `cpuMs` (null: unknown; a share never started counts nothing). */
  finished(cpuMs: number | null): void;
}

export class ConversionCpuWatch {
  private readonly shares = new Set<{ worker: WorkerStarted | null; doneMs: number | null; done: boolean }>();
  private readonly startedAt = Date.now();
  private readonly ceiling: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly cpuBudgetMs: number,
    wallCeilingMs: number,
    private readonly minRecheckMs: number,
    private readonly spent: () => void,
  ) {
    this.ceiling = this.startedAt + wallCeilingMs;
  }

  /** A thread that will work on the conversion; the first is the document's own worker's. */
  share(): ThreadShare {
    const share = { worker: null as WorkerStarted | null, doneMs: null as number | null, done: false };
    this.shares.add(share);
    return {
      started: (worker) => {
        if (share.done || this.stopped) return;
        share.worker = worker;
        this.schedule();
      },
      finished: (cpuMs) => {
        if (share.done) return;
        share.done = true;
        share.doneMs = share.worker ? cpuMs : 0;
      },
    };
  }

  /** CPU ms the conversion has used so far (wall-clock ms where a thread's is unknown). */
  usedMs(): number {
    let used = 0;
    for (const { worker, doneMs, done } of this.shares) {
      if (!worker && !done) continue;
      const ms = done ? doneMs : worker!.tid === null || worker!.cpuMs === null ? null : threadCpuMs(worker!.tid);
      if (ms === null) return Date.now() - this.startedAt;
      used += done ? ms : ms - worker!.cpuMs!;
    }
    return used;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private working(): number {
    let threads = 0;
    for (const { worker, done } of this.shares) if (worker && !done) threads++;
    return Math.max(1, threads);
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const left = this.cpuBudgetMs - this.usedMs();
    const wallLeft = this.ceiling - Date.now();
    if (left <= 0 || wallLeft <= 0) {
      this.stop();
      this.spent();
      return;
    }
    // Wall-clock time passes at least as fast as each thread's CPU time.
    const wait = Math.min(left / this.working(), wallLeft);
    this.timer = setTimeout(() => this.schedule(), Math.max(this.minRecheckMs, wait));
  }
}
