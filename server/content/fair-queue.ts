/**
 * Admission in front of the conversion workers: one FIFO per account, served round-robin, with at
 * most `inFlight` jobs running and at most `inFlightPerKey` of one account. An account with a
 * backlog gets one turn per round like any other, so another account's single document waits for
 * at most one document of each busy account, not for the whole backlog; and with
 * `inFlightPerKey < inFlight` one account can never hold every worker, so a single busy account
 * leaves a worker free for the others. Both the waiting documents of one account
 * and all waiting documents are bounded: past either bound `enqueue` refuses at once with
 * FairQueueFullError instead of letting the queue (and its memory) grow.
 *
 * Spare jobs (`enqueueSpare`: the parts of a large document that other workers may parse while
 * its own worker converts it, pool.ts) take only turns nobody else wants: one starts when a
 * worker is free and no waiting job of any key may start, and then even past `inFlightPerKey`
 * (never past `inFlight`). So an account's large document can use every idle worker, but the next
 * free worker goes to any other waiting document first: another account waits for one part (a
 * fraction of a second), not for the document. They are bounded by their callers (a document's
 * parts), not by the waiting limits, and never refused.
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
  /** Jobs of one key running at once; `inFlight` when not given. */
  inFlightPerKey?: number;
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
  /** Spare jobs waiting, per key, in round-robin order like `waiting`. */
  private readonly spare = new Map<string, Waiting[]>();
  private waitingCount = 0;
  private running = 0;
  private readonly runningByKey = new Map<string, number>();

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
    if (!queue && this.canStart(key)) {
      return { result: this.run(key, job), cancel: () => false };
    }
    if ((queue?.length ?? 0) >= this.limits.waitingPerKey) throw new FairQueueFullError('account');
    if (this.waitingCount >= this.limits.waitingTotal) throw new FairQueueFullError('total');
    let entry!: Waiting;
    const result = new Promise<T>((resolve, reject) => {
      entry = { start: () => this.run(key, job).then(resolve, reject) };
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

  /**
   * Runs `job` under `key` when a worker would otherwise stay idle (see the header); `cancel` as
   * for `enqueue`.
   */
  enqueueSpare<T>(key: string, job: () => Promise<T>): { result: Promise<T>; cancel: () => boolean } {
    if (this.running < this.limits.inFlight && !this.someWaitingMayStart()) {
      return { result: this.run(key, job), cancel: () => false };
    }
    let entry!: Waiting;
    const result = new Promise<T>((resolve, reject) => {
      entry = { start: () => this.run(key, job).then(resolve, reject) };
    });
    const queue = this.spare.get(key);
    if (queue) queue.push(entry);
    else this.spare.set(key, [entry]);
    const cancel = (): boolean => {
      const list = this.spare.get(key);
      const at = list?.indexOf(entry) ?? -1;
      if (!list || at < 0) return false;
      list.splice(at, 1);
      if (list.length === 0) this.spare.delete(key);
      return true;
    };
    return { result, cancel };
  }

  /** Whether `enqueue(key, …)` would refuse now (checked before a request's body is read). */
  wouldRefuse(key: string): boolean {
    const queue = this.waiting.get(key);
    if (!queue && this.canStart(key)) return false;
    return (queue?.length ?? 0) >= this.limits.waitingPerKey || this.waitingCount >= this.limits.waitingTotal;
  }

  /** Whether `wouldRefuse` refuses some key now (any key, one never seen included). */
  refusesAnyKey(): boolean {
    const mayNotWait = (waiting: number) =>
      waiting >= this.limits.waitingPerKey || this.waitingCount >= this.limits.waitingTotal;
    // A key with jobs waiting is refused when it may not wait longer; one without, when it
    // cannot start at once and may not wait. A key never seen cannot start when all run.
    for (const queue of this.waiting.values()) if (mayNotWait(queue.length)) return true;
    if (!mayNotWait(0)) return false;
    if (this.running >= this.limits.inFlight) return true;
    for (const key of this.runningByKey.keys()) if (!this.waiting.has(key) && !this.canStart(key)) return true;
    return false;
  }

  private someWaitingMayStart(): boolean {
    for (const key of this.waiting.keys()) if (this.canStart(key)) return true;
    return false;
  }

  private canStart(key: string): boolean {
    return (
      this.running < this.limits.inFlight &&
      (this.runningByKey.get(key) ?? 0) < (this.limits.inFlightPerKey ?? this.limits.inFlight)
    );
  }

  private async run<T>(key: string, job: () => Promise<T>): Promise<T> {
    this.running++;
    this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
    try {
      return await job();
    } finally {
      this.running--;
      const left = this.runningByKey.get(key)! - 1;
      if (left === 0) this.runningByKey.delete(key);
      else this.runningByKey.set(key, left);
      this.next();
    }
  }

  /**
   * Starts the head of the first key in turn that may start one, then moves that key to the
   * back of the round; spare jobs when no waiting job may start.
   */
  private next(): void {
    while (this.running < this.limits.inFlight && this.waitingCount > 0) {
      let chosen: [string, Waiting[]] | undefined;
      for (const entry of this.waiting) {
        if (this.canStart(entry[0])) {
          chosen = entry;
          break;
        }
      }
      if (!chosen) break;
      const [key, queue] = chosen;
      const entry = queue.shift()!;
      this.waitingCount--;
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      entry.start();
    }
    this.nextSpare();
  }

  /** Starts spare jobs, round-robin over keys, while workers are free (no waiting job may start). */
  private nextSpare(): void {
    while (this.running < this.limits.inFlight) {
      const first = this.spare.entries().next();
      if (first.done) return;
      const [key, queue] = first.value;
      const entry = queue.shift()!;
      this.spare.delete(key);
      if (queue.length > 0) this.spare.set(key, queue);
      entry.start();
    }
  }
}
