/**
 * Conversion off the HTTP event loop: a piscina pool sized to the cores (plus one worker kept for
 * other accounts than the busiest), fed by a fair queue (fair-queue.ts: one FIFO per account
 * served round-robin, bounded, never more documents in flight than workers, so piscina's own
 * queue stays empty). A document's budget of about
 * 1 s + 10 s per MB (limits.ts) counts from the moment it is queued (a cold worker's start-up
 * excepted), so waiting is bounded too.
 * A document refused by a full queue, or whose budget ran out before a worker took it, gets a
 * ConversionBusyError (503: not its fault). Past the budget while converting the task is aborted,
 * piscina terminates that worker (the only way to stop synchronous parsing), and the caller gets a
 * ContentRejectedError.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import Piscina from 'piscina';
import { env } from '../env';
import { conversionSeconds } from '../metrics';
import { ContentRejectedError, ConversionBusyError, REJECT } from './errors';
import { FairQueue, FairQueueFullError } from './fair-queue';
import { timeBudgetMs } from './limits';
import type { RenderInput, RenderOutput } from './types';
import type { RenderResult, RenderTask, RewriteResult, RewriteTask } from './task';

/** Heap cap per worker: a runaway document fails its own task instead of the process. */
const WORKER_HEAP_MB = 1024;

/**
 * Young generation per worker, kept small and fixed. micromark's tokens all live until the end
 * of a conversion; with V8's default, growing semi-spaces a small document's tokens die young
 * (cheap) while a larger one's are promoted, so the per-byte cost steps up once between ~5 and
 * ~20 KB: a linear parser then shows time(2n)/time(n) of 3-5 across that step on token-dense
 * input (`[` + 10,000 backslashes, entities, code spans). With semi-spaces fixed at 1 MB every
 * size is in the same regime (ratio ~2) and large documents are not slower (bench/content.ts).
 */
const WORKER_YOUNG_GENERATION_MB = 3;

type ContentPool = Piscina<RenderTask | RewriteTask, RenderResult | RewriteResult>;

/**
 * One pool per process, on globalThis: the launcher's code and the code Next loads for the
 * console are separate module instances, and two pools would each claim the cores.
 */
const shared = globalThis as unknown as { __publishingContentPool?: ContentPool; __publishingContentQueue?: FairQueue };

/**
 * Sized to the cores, leaving one for the HTTP event loop: with every core parsing, requests
 * that need no conversion (GET /me) would wait for CPU (their p99 should stay within 2x of an
 * idle server's while large articles are converted).
 * CONTENT_POOL_THREADS overrides.
 */
function poolThreads(): number {
  if (env.CONTENT_POOL_THREADS) return env.CONTENT_POOL_THREADS;
  return Math.max(1, availableParallelism() - 1);
}

function workerPath(): string {
  const file = env.CONTENT_WORKER_PATH ?? path.resolve(process.cwd(), 'dist/content-worker.mjs');
  // A runtime path outside the bundle: tell Turbopack not to trace the whole project for it.
  if (!existsSync(/*turbopackIgnore: true*/ file)) {
    throw new Error(`content worker bundle not found at ${file}: run npm run build:server`);
  }
  return file;
}

function contentPool(): ContentPool {
  shared.__publishingContentPool ??= new Piscina<RenderTask | RewriteTask, RenderResult | RewriteResult>({
    filename: workerPath(),
    minThreads: 1,
    maxThreads: workerCount(),
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  return shared.__publishingContentPool;
}

/**
 * One worker more than `poolThreads()`, which no single account may use: while one account keeps
 * every regular worker busy with slow documents, another account's document still starts at
 * once instead of waiting for one of them (a 1 MB document may take its whole 11 s budget). It
 * costs a worker's memory and, while two accounts convert, a core shared with the event loop.
 */
function workerCount(): number {
  return poolThreads() + 1;
}

function contentQueue(): FairQueue {
  shared.__publishingContentQueue ??= new FairQueue({
    inFlight: workerCount(),
    inFlightPerKey: poolThreads(),
    waitingPerKey: env.CONTENT_QUEUE_PER_ACCOUNT,
    waitingTotal: env.CONTENT_QUEUE_LIMIT,
  });
  return shared.__publishingContentQueue;
}

/**
 * Whether a document of `owner` would be refused right now: lets the transport answer 503 before
 * reading a body that could not be converted anyway (a 1 MB JSON parse per refusal otherwise).
 */
export function conversionQueueFull(owner: string): boolean {
  return shared.__publishingContentQueue?.wouldRefuse(owner) ?? false;
}

/** Documents waiting for a worker (metrics). */
export function contentQueueDepth(): number {
  return (shared.__publishingContentQueue?.size ?? 0) + (shared.__publishingContentPool?.queueSize ?? 0);
}

/**
 * `owner` is whose turn the document takes in the fair queue (the account's id); documents
 * without one share a single turn.
 */
export async function renderArticle(input: RenderInput, owner = ''): Promise<RenderOutput> {
  const result = (await runBudgeted(Buffer.byteLength(input.markdown ?? '', 'utf8'), owner, (started) => ({
    input,
    started,
  }))) as RenderResult;
  if (!result.ok) throw new ContentRejectedError(result.rejection);
  return result.output;
}

/**
 * `html` (the `html` of a conversion) with its external image sources replaced as a conversion
 * with `rehosted` would have (rewrite.ts): rehosting after a conversion without converting again.
 * Parsing html is linear but not free (hundreds of ms for a 1 MB article), so it runs in the pool
 * under the same budget as a conversion of that size.
 */
export async function rewriteImageSources(html: string, rehosted: Record<string, string>, owner = ''): Promise<string> {
  if (Object.keys(rehosted).length === 0 || !html.includes('<img')) return html;
  const result = (await runBudgeted(Buffer.byteLength(html, 'utf8'), owner, (started) => ({
    rewrite: { html, rehosted },
    started,
  }))) as RewriteResult;
  if (!result.ok) throw new ContentRejectedError(result.rejection);
  return result.html;
}

async function runBudgeted(
  bytes: number,
  owner: string,
  task: (started: MessagePort) => RenderTask | RewriteTask,
): Promise<RenderResult | RewriteResult> {
  const workers = contentPool();
  const abort = new AbortController();
  const { port1, port2 } = new MessageChannel();
  const budget = timeBudgetMs(bytes);
  const queuedAt = Date.now();
  let remaining = budget;
  let started = false;
  // Time spent waiting for a turn is part of the document's budget; a worker's start-up (a
  // cold worker loads the whole pipeline) is not, as it is not the document's doing.
  let timer = setTimeout(() => abort.abort(), budget);
  port1.once('message', () => {
    started = true;
    timer = setTimeout(() => abort.abort(), remaining);
  });
  const stopTimer = conversionSeconds.startTimer();
  try {
    const queued = contentQueue().enqueue(owner, () => {
      if (abort.signal.aborted) throw new ConversionBusyError();
      clearTimeout(timer);
      remaining = Math.max(0, budget - (Date.now() - queuedAt));
      return workers.run(task(port2), { signal: abort.signal, transferList: [port2] });
    });
    const gaveUp = new Promise<never>((_, reject) => {
      abort.signal.addEventListener('abort', () => {
        if (queued.cancel()) reject(new ConversionBusyError());
      });
    });
    return await Promise.race([queued.result, gaveUp]);
  } catch (error) {
    if (error instanceof FairQueueFullError || error instanceof ConversionBusyError) throw new ConversionBusyError();
    if (abort.signal.aborted) throw started ? new ContentRejectedError(REJECT.timeBudget) : new ConversionBusyError();
    if (isOutOfMemory(error)) throw new ContentRejectedError(REJECT.memory);
    throw error;
  } finally {
    stopTimer();
    clearTimeout(timer);
    port1.close();
  }
}

function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

export async function closeContentPool(): Promise<void> {
  const closing = shared.__publishingContentPool;
  shared.__publishingContentPool = undefined;
  shared.__publishingContentQueue = undefined;
  await closing?.destroy();
}
