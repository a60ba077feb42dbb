/** Messages between pool.ts and worker.ts (plain data: class identity does not cross threads). */
import type { MessagePort } from 'node:worker_threads';
import type { ArticleZones, ZonesDiff } from './block-diff';
import type { RenderInput, RenderOutput } from './types';

interface RenderTask {
  input: RenderInput;
  /** The account converting: the worker reuses only its own recently parsed blocks (block-parse.ts). */
  owner: string;
  /**
   * The worker posts one `WorkerStarted` here when it starts the task, so queueing time is not
   * conversion time, and the pool can count the CPU time the worker spends on it.
   */
  started: MessagePort;
}

/** Which thread took the task and the CPU time it had used before (null where unknown). */
export interface WorkerStarted {
  tid: number | null;
  cpuMs: number | null;
}

/** Given to every worker thread when the pool starts it. */
export interface WorkerSettings {
  /** The nice value the worker lowers its own priority to (0: unchanged). */
  nice: number;
  /** Whether the worker keeps parsed blocks for the next conversions (ContentPoolSettings). */
  reuseParsedBlocks: boolean;
}

/** Image source substitution in already converted html (rewrite.ts). */
interface RewriteTask {
  rewrite: { html: string; rehosted: Record<string, string> };
  started: MessagePort;
}

/** Two renderings of an article compared block by block (block-diff.ts: bounded work). */
interface DiffTask {
  diff: { before: ArticleZones; after: ArticleZones };
  started: MessagePort;
}

export type PoolTask = RenderTask | RewriteTask | DiffTask;

export type RenderResult =
  | {
      ok: true;
      output: RenderOutput;
      /** Source characters this conversion took from the worker's parsed blocks, and parsed (block-parse.ts). */
      parse: { reused: number; parsed: number };
    }
  | { ok: false; rejection: string };
export type RewriteResult = { ok: true; html: string } | { ok: false; rejection: string };
export type DiffResult = { ok: true; zones: ZonesDiff };
export type PoolResult = RenderResult | RewriteResult | DiffResult;
