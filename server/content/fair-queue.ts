/**
 * Admission in front of the conversion workers: one FIFO per account, served round-robin, with at
 * most `inFlight` jobs running. An account with a backlog gets one turn per round like any other,
 * so another account's single document waits for at most one document of each busy account (and
 * the ones already running), not for the whole backlog. Both the waiting documents of one account
 * and all waiting documents are bounded: past either bound `enqueue` refuses at once with
 * FairQueueFullError instead of letting the queue (and its memory) grow.
 */

export class FairQueueFullError extends Error {
  constructor(readonly scope: 'account' | 'total') {
    super(scope === 'account' ? 'too many documents of this account waiting' : 'too many documents waiting');
    this.name = 'FairQueueFullError';
  }
}

export interface FairQueueLimits {
  /** Jobs running at once. */
  inFlight: number;
  /** Jobs waiting, per key. */
  waitingPerKey: number;
  /** Jobs waiting, all keys together. */
  waitingTotal: number;
}

interface Waiting {
  start: () => void;
}

export class FairQueue {
  /** Keys with waiting jobs, in round-robin order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  private running = 0;

  constructor(private readonly limits: FairQueueLimits) {}

  /** Jobs waiting for a turn (metrics). */
  get size(): number {
    return this.waitingCount;
  }

  /**
   * Runs `job` once it is `key`'s turn. A job whose caller gave up while it waited is dropped with
   * the returned `cancel` (true when it was still waiting, false once it started).
   */
  enqueue<T>(key: string, job: () => Promise<T>): { result: Promise<T>; cancel: () => boolean } {
    const queue = this.waiting.get(key);
    if (this.running < this.limits.inFlight && this.waitingCount === 0) {
      return { result: this.run(job), cancel: () => false };
    }
    if ((queue?.length ?? 0) >= this.limits.waitingPerKey) throw new FairQueueFullError('account');
    if (this.waitingCount >= this.limits.waitingTotal) throw new FairQueueFullError('total');
    let entry!: Waiting;
    const result = new Promise<T>((resolve, reject) => {
      entry = { start: () => this.run(job).then(resolve, reject) };
    });
    if (queue) queue.push(entry);
    else this.waiting.set(key, [entry]);
    this.waitingCount++;
    const cancel = (): boolean => {
      const list = this.waiting.get(key);
      const at = list?.indexOf(entry) ?? -1;
      if (!list || at < 0) return false;
      list.splice(at, 1);
      this.waitingCount--;
      if (list.length === 0) this.waiting.delete(key);
      return true;
    };
    return { result, cancel };
  }

  private async run<T>(job: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await job();
    } finally {
      this.running--;
      this.next();
    }
  }

  /** Starts the head of the first key in turn, then moves that key to the back of the round. */
  private next(): void {
    while (this.running < this.limits.inFlight && this.waitingCount > 0) {
      const [key, queue] = this.waiting.entries().next().value as [string, Waiting[]];
      const entry = queue.shift()!;
      this.waitingCount--;
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      entry.start();
    }
  }
}
