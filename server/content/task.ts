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

/**
 * How a worker parses a large document (parallel-parse.ts): in parts, shared with free workers;
 * in parts, all by itself; or whole.
 */
export type PartsMode = 'shared' | 'alone' | 'off';

/** Given to every worker thread when the pool starts it. */
export interface WorkerSettings {
  /** The nice value the worker lowers its own priority to (0: unchanged). */
  nice: number;
  /** Whether the worker keeps parsed blocks for the next conversions (ContentPoolSettings). */
  reuseParsedBlocks: boolean;
  /** How the worker parses a large document (ContentPoolSettings). */
  parseInParts?: PartsMode;
  /** From how many characters a document is parsed in parts (ContentPoolSettings). */
  partsFromChars?: number;
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

/**
 * From a worker converting a large document to the pool, on the task's `started` port after its
 * `WorkerStarted`: parts of the document other workers may parse (parallel-parse.ts), each with
 * the port to deliver it on (transferred). The pool queues one `PartTask` per part, as spare work
 * under the document's account (fair-queue.ts).
 */
export interface PartsOffer {
  parts: PartToParse[];
}

/** One part of a document, for whichever thread claims it first (parallel-parse.ts). */
export interface PartToParse {
  index: number;
  text: string;
  /** Offset of the part's first character in the document, and the document's lines before it. */
  start: number;
  lineBefore: number;
  /** Where the parts are claimed: an Int32Array over it, one slot per part. */
  claims: SharedArrayBuffer;
  /** Where the part's nodes go, to the document's worker. */
  port: MessagePort;
}

/** A part of a document, parsed for the document's worker (parallel-parse.ts). */
interface PartTask {
  part: PartToParse;
  started: MessagePort;
}

/**
 * Any task may carry the W3C `traceparent` of the pool's `conversion` span (traces on): the
 * worker's entry (runtime/content-worker-entry.ts) records its time under it.
 */
export type PoolTask = (RenderTask | RewriteTask | DiffTask | PartTask) & { traceparent?: string };

export type RenderResult =
  | {
      ok: true;
      output: RenderOutput;
      /**
       * Source characters this conversion took from the worker's parsed blocks, and parsed
       * (block-parse.ts); the parts it was parsed in (parallel-parse.ts: 1 when whole) and how
       * many of them other workers parsed.
       */
      parse: { reused: number; parsed: number; parts: number; partsByHelpers: number };
    }
  | { ok: false; rejection: string };
export type RewriteResult = { ok: true; html: string } | { ok: false; rejection: string };
export type DiffResult = { ok: true; zones: ZonesDiff };
/** Whether the worker parsed the part (the document's worker may have claimed it first), and its CPU time. */
export type PartResult = { ok: true; parsed: boolean; cpuMs: number | null };
export type PoolResult = RenderResult | RewriteResult | DiffResult | PartResult;
