/**
 * At most `limit` tasks at once, the others waiting in arrival order. Process-wide caps on work
 * that holds memory or CPU outside the event loop (downloads, ffmpeg children) use one each.
 *
 * With `maxWaiting`, at most that many wait: the next one is refused at once with the error
 * `full` makes, for work whose waiters each hold much (a GIF of up to 50 MiB waiting for ffmpeg),
 * so that a queue behind a slow task cannot hold memory without a bound.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limit: number,
    private readonly bound?: { maxWaiting: number; full: () => Error },
  ) {}

  /** Tasks running now (metrics, tests). */
  get running(): number {
    return this.active;
  }

  /** Tasks waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit && this.bound && this.waiting.length >= this.bound.maxWaiting)
      throw this.bound.full();
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The turn passes straight to the next waiter, so a newcomer cannot overtake it.
      if (next) next();
      else this.active--;
    }
  }
}
