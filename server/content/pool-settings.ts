/**
 * How the process's conversion pool (pool.ts) runs: its settings, from the environment.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { env } from '../foundation/env';
import { SELF_ORIGINS } from './self-origins';
import type { PartsMode } from './task';

/** How the process's conversions run; read from the environment by `contentPoolSettings`. */
export interface ContentPoolSettings {
  /**
   * Regular worker threads: the cores less one, kept for the HTTP event loop (with every core
   * parsing, requests that need no conversion, such as GET /me, would wait for CPU).
   */
  threads: number;
  /** The bundled worker (`npm run build:server`). */
  workerPath: string;
  /** Nice value of the background lane's threads; 0: both lanes at the normal priority. */
  nice: number;
  /** Documents one account, and all accounts, may have waiting for a worker. */
  waitingPerAccount: number;
  waitingTotal: number;
  /** The public pages' origins (PUBLIC_ORIGIN), for the conversion's self-image rule. */
  selfOrigins: readonly string[];
  /**
   * Whether workers reuse an account's recently parsed blocks (block-parse.ts). Always on in the
   * service; off only where a conversion must parse whole, as the bare write server of the
   * benchmarks stands for the pipeline alone.
   */
  reuseParsedBlocks: boolean;
  /**
   * Whether a large document is parsed in parts shared with free workers (parallel-parse.ts;
   * 'shared' when not given); 'alone' and 'off' only to measure one worker against all
   * (bench/content-shapes.ts).
   */
  parseInParts?: PartsMode;
  /**
   * From how many characters a document is parsed in parts (PARTS_FROM_CHARS when not given).
   * Lower only in tests, so that documents a few times smaller take the same path.
   */
  partsFromChars?: number;
  /** Young generation of the background lane's workers in MB (pool.ts says why it is large). */
  backgroundYoungGenerationMb: number;
}

/**
 * The settings of CONTENT_POOL_THREADS, CONTENT_WORKER_PATH, CONTENT_WORKER_NICE,
 * CONTENT_BACKGROUND_YOUNG_MB and CONTENT_QUEUE_*; `workerPath` given, that bundle instead (a
 * test's own build of the worker).
 */
export function contentPoolSettings(
  workerPath = env.CONTENT_WORKER_PATH ?? path.resolve(process.cwd(), 'dist/content-worker.mjs'),
): ContentPoolSettings {
  // A runtime path outside the bundle: tell Turbopack not to trace the whole project for it.
  if (!existsSync(/*turbopackIgnore: true*/ workerPath)) {
    throw new Error(`content worker bundle not found at ${workerPath}: run npm run build:server`);
  }
  return {
    threads: env.CONTENT_POOL_THREADS ?? Math.max(1, availableParallelism() - 1),
    workerPath,
    nice: env.CONTENT_WORKER_NICE,
    backgroundYoungGenerationMb: env.CONTENT_BACKGROUND_YOUNG_MB,
    waitingPerAccount: env.CONTENT_QUEUE_PER_ACCOUNT,
    waitingTotal: env.CONTENT_QUEUE_LIMIT,
    selfOrigins: SELF_ORIGINS,
    reuseParsedBlocks: true,
  };
}
