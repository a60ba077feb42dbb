import { ConcurrencyLimit } from '../foundation/concurrency-limit';
import { inSpan, SpanKind, TRACING } from '../foundation/tracing';

/**
 * Purging shared caches (CACHE_PURGE_URLS): `PURGE <path>` to every cache once a public path
 * changed, in the background. The author's request never waits for a cache and never fails
 * because of one: `purge()` only schedules, and every failure ends in an outcome (a log line and
 * `cache_purges_total{result}`, wired by the caller), never in an exception.
 *
 * - Retries: a connection failure, a timeout, a 5xx or a 429 is tried again after 250 ms, 500 ms,
 *   1 s, 2 s (5 attempts by default, each bounded by a timeout); any other 4xx (a cache that
 *   refuses PURGE: 403, 405) is a configuration problem and is reported at once as `failed`.
 *   A 404 is the cache saying it held nothing for the path: `not_cached`, a success.
 * - Once more after `repeatAfterMs`: a reader's request that an instance answered from the
 *   database just before the change committed may reach the cache just after the first purge
 *   and store the old answer again; the second purge removes it.
 * - Bounded: at most `concurrency` purges in flight and `maxPending` waiting; beyond that a
 *   purge is `dropped` (the page still expires by its own Cache-Control).
 */
type PurgeResult = 'purged' | 'not_cached' | 'failed' | 'dropped';

export interface PurgeOutcome {
  /** The cache's host (never its full URL: it may carry credentials). */
  cache: string;
  path: string;
  result: PurgeResult;
  attempts: number;
  /** From scheduling to the outcome. */
  ms: number;
  status?: number;
  error?: string;
}

export interface PurgeQueueOptions {
  /** Base URLs of the caches (env.CACHE_PURGE_URLS, validated there). */
  caches: readonly string[];
  onOutcome: (outcome: PurgeOutcome) => void;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
  repeatAfterMs?: number;
  concurrency?: number;
  maxPending?: number;
}

export interface PurgeQueue {
  /** Schedules `PURGE <path>` of each path on each cache; returns at once, never throws. */
  purge(paths: readonly string[]): void;
  /** Resolves when every scheduled purge has an outcome, or after `timeoutMs` (shutdown, CLI exit). */
  settled(timeoutMs: number): Promise<void>;
}

const RETRYABLE = (status: number) => status >= 500 || status === 429 || status === 408;

export function createPurgeQueue(options: PurgeQueueOptions): PurgeQueue {
  const attempts = options.attempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 2000;
  const repeatAfterMs = options.repeatAfterMs ?? 2000;
  const maxPending = options.maxPending ?? 10_000;
  const limit = new ConcurrencyLimit(options.concurrency ?? 8);
  const running = new Set<Promise<void>>();
  const report = (outcome: PurgeOutcome) => {
    try {
      options.onOutcome(outcome);
    } catch {
      // Reporting must not break the queue.
    }
  };

  async function attempt(url: URL): Promise<{ status?: number; error?: string }> {
    try {
      const res = await fetch(url, { method: 'PURGE', signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      await res.body?.cancel().catch(() => {});
      return { status: res.status };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { error: cause ?? (err as Error).name ?? 'error' };
    }
  }

  async function send(base: string, path: string, startedAt: number): Promise<PurgeOutcome | undefined> {
    const url = new URL(base.replace(/\/+$/, '') + path);
    let last: { status?: number; error?: string } = {};
    for (let n = 1; n <= attempts; n++) {
      last = await limit.run(() => attempt(url));
      const status = last.status;
      const done = status !== undefined && !RETRYABLE(status);
      if (done || n === attempts) {
        const result: PurgeResult =
          status !== undefined && status >= 200 && status < 300 ? 'purged' : status === 404 ? 'not_cached' : 'failed';
        const outcome: PurgeOutcome = {
          cache: url.host,
          path,
          result,
          attempts: n,
          ms: Date.now() - startedAt,
          ...last,
        };
        report(outcome);
        return outcome;
      }
      await sleep(Math.min(baseDelayMs * 2 ** (n - 1), 10_000));
    }
  }

  function track(job: Promise<void>): void {
    running.add(job);
    void job.finally(() => running.delete(job));
  }

  function schedule(paths: readonly string[], startedAt: number): void {
    for (const base of options.caches) {
      for (const path of paths) {
        if (running.size >= maxPending) {
          report({ cache: hostOf(base), path, result: 'dropped', attempts: 0, ms: 0 });
          continue;
        }
        track(
          (TRACING ? tracedSend(base, path, startedAt) : send(base, path, startedAt)).then(
            () => {},
            () => {},
          ),
        );
      }
    }
  }

  /**
   * Traces on: one path's purge of one cache, retries included, as a `cache.purge` span under
   * the change that asked for it: the cache's host, never its URL (it may carry credentials), nor the path.
   */
  function tracedSend(base: string, path: string, startedAt: number) {
    const attributes = { 'server.address': hostOf(base) };
    return inSpan('cache.purge', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const outcome = await send(base, path, startedAt);
      if (outcome) {
        span.setAttribute('cache.purge.result', outcome.result);
        span.setAttribute('cache.purge.attempts', outcome.attempts);
        if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
        if (outcome.result === 'failed') span.setAttribute('error.type', outcome.error ?? `${outcome.status}`);
      }
      return outcome;
    });
  }

  return {
    purge(paths) {
      if (options.caches.length === 0 || paths.length === 0) return;
      const startedAt = Date.now();
      schedule(paths, startedAt);
      if (repeatAfterMs > 0) track(sleep(repeatAfterMs).then(() => schedule(paths, Date.now())));
    },
    async settled(waitMs) {
      const deadline = Date.now() + waitMs;
      while (running.size > 0 && Date.now() < deadline) {
        // A timer that holds the process open: the CLI waits here before it exits.
        let timer: NodeJS.Timeout | undefined;
        const expiry = new Promise<void>(
          (resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))),
        );
        await Promise.race([Promise.allSettled([...running]), expiry]);
        clearTimeout(timer);
      }
    },
  };
}

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return 'invalid';
  }
}

/** Waits that never keep a server process alive on their own. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
