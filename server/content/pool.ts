/**
 * Conversion off the HTTP event loop (issue 3): a piscina pool sized to the cores, with a
 * per-document budget of about 1 s + 10 s per MB (limits.ts) counted from the moment a worker
 * starts the document. Past the budget the task is aborted, piscina terminates that worker (the
 * only way to stop synchronous parsing), and the caller gets a ContentRejectedError.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import Piscina from 'piscina';
import { ContentRejectedError, REJECT } from './errors';
import { timeBudgetMs } from './limits';
import type { RenderInput, RenderOutput } from './types';
import type { RenderResult, RenderTask } from './task';

/** Heap cap per worker: a runaway document fails its own task instead of the process. */
const WORKER_HEAP_MB = 1024;

let pool: Piscina<RenderTask, RenderResult> | undefined;

/**
 * Sized to the cores, leaving one for the HTTP event loop: with every core parsing, requests
 * that need no conversion (GET /me) would wait for CPU (issue 3: their p99 must stay within 2x).
 * CONTENT_POOL_THREADS overrides.
 */
function poolThreads(): number {
  const configured = Number(process.env.CONTENT_POOL_THREADS);
  if (Number.isInteger(configured) && configured > 0) return configured;
  return Math.max(1, availableParallelism() - 1);
}

function workerPath(): string {
  const file = process.env.CONTENT_WORKER_PATH ?? path.resolve(process.cwd(), 'dist/content-worker.mjs');
  if (!existsSync(file)) {
    throw new Error(`content worker bundle not found at ${file}: run npm run build:worker`);
  }
  return file;
}

function contentPool(): Piscina<RenderTask, RenderResult> {
  pool ??= new Piscina<RenderTask, RenderResult>({
    filename: workerPath(),
    minThreads: 1,
    maxThreads: poolThreads(),
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  return pool;
}

export async function renderArticle(input: RenderInput): Promise<RenderOutput> {
  const workers = contentPool();
  const budget = timeBudgetMs(Buffer.byteLength(input.markdown ?? '', 'utf8'));
  const abort = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let timer: NodeJS.Timeout | undefined;
  port1.once('message', () => {
    timer = setTimeout(() => abort.abort(), budget);
  });
  try {
    const result = await workers.run({ input, started: port2 }, { signal: abort.signal, transferList: [port2] });
    if (!result.ok) throw new ContentRejectedError(result.rejection);
    return result.output;
  } catch (error) {
    if (abort.signal.aborted) throw new ContentRejectedError(REJECT.timeBudget);
    if (isOutOfMemory(error)) throw new ContentRejectedError(REJECT.memory);
    throw error;
  } finally {
    clearTimeout(timer);
    port1.close();
  }
}

function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

export async function closeContentPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
