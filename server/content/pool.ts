/**
 * Conversion off the HTTP event loop: a piscina pool sized to the cores (plus one worker kept for
 * other accounts than the busiest), fed by a fair queue (fair-queue.ts: one FIFO per account
 * served round-robin, bounded, never more documents in flight than workers, so piscina's own
 * queue stays empty). Documents over BACKGROUND_FROM_BYTES run on workers at a lower priority
 * than the event loop (CONTENT_WORKER_NICE, worker-thread.ts): a large or hostile document then
 * takes only the CPU that requests and ordinary articles leave over.
 *
 * A document's budget of about 1 s + 10 s per MB (conversion-bounds.ts) starts when it is queued: waiting
 * for a turn spends it in wall-clock time, converting spends what is left in the CPU time of the
 * worker (read from /proc; wall-clock where that is unknown), with a wall-clock ceiling of
 * WALL_CEILING times that CPU budget. A cold worker's start-up is not counted.
 * A document refused by a full queue, or whose budget ran out (or nearly) before a worker took it,
 * gets a ConversionBusyError (503: not its fault). Past its budget while converting the task is
 * aborted, piscina terminates that worker (the only way to stop synchronous parsing), and the
 * caller gets a ContentRejectedError.
 *
 * A large document's worker offers parts of its parse to the others (parallel-parse.ts): they run
 * as spare work under the document's account (part-helpers.ts, fair-queue.ts), so the document
 * uses every idle worker and another account's document still gets the next free one; their CPU
 * time counts against the same budget (conversion-cpu.ts).
 */
import { MessageChannel, type MessagePort, type ResourceLimits } from 'node:worker_threads';
import Piscina from 'piscina';
import { conversionSeconds, parsedCharacters } from '../foundation/metrics';
import { ContentRejectedError, ConversionBusyError, REJECT } from './errors';
import { FairQueue, FairQueueFullError } from './fair-queue';
import { timeBudgetMs } from './conversion-bounds';
import type { RenderInput, RenderOutput } from './types';
import type { ArticleZones, ZonesDiff } from './block-diff';
import type {
  DiffResult,
  PoolResult,
  PoolTask,
  RenderResult,
  RewriteResult,
  WorkerSettings,
  PartsOffer,
  WorkerStarted,
} from './task';
import { ConversionCpuWatch } from './conversion-cpu';
import type { ContentPoolSettings } from './pool-settings';
import { queuePartHelpers } from './part-helpers';
import { TRACING } from '../foundation/tracing';
import { conversionSpans } from './conversion-spans';

export { contentPoolSettings, type ContentPoolSettings } from './pool-settings';

/**
 * How a worker waits for its next task: `async`, so that its event loop turns between tasks.
 * piscina's default (`sync`: Atomics.wait, the next task read without returning to the loop)
 * never lets the loop run, and Node finishes closing a MessagePort on the loop: every task's
 * `started` port, closed by worker.ts, stayed in the worker (about 1.7 KB each: 300 MB of the
 * conversion worker's heap after 180,000 conversions in the memory soak, docs/memory.md). With
 * traces on, the loop also sends the spans the worker recorded.
 */
export const WORKER_WAIT = { atomics: 'async' } as const;

/** Heap cap per worker: a runaway document fails its own task instead of the process. */
const WORKER_HEAP_MB = 1024;

/**
 * Young generation of the foreground lane's workers, kept small and fixed. micromark's tokens all
 * live until the end of a conversion; with V8's default, growing semi-spaces a small document's
 * tokens die young (cheap) while a larger one's are promoted, so the per-byte cost steps up once
 * between ~5 and ~20 KB: a linear parser then shows time(2n)/time(n) of 3-5 across that step on
 * token-dense input (`[` + 10,000 backslashes, entities, code spans). With semi-spaces fixed at
 * 1 MB every size is in the same regime (ratio ~2).
 */
const FOREGROUND_YOUNG_GENERATION_MB = 3;

/**
 * The background lane's workers (documents over BACKGROUND_FROM_BYTES, and the parts of large
 * ones) have a large young generation (CONTENT_BACKGROUND_YOUNG_MB, 128 MB by default), because
 * there a small one costs more than it saves. A large document parsed in parts
 * (parallel-parse.ts) is ~110 parts of ~17,000 characters; a part's micromark events are garbage
 * once its tree is built, and cheap garbage only if they die young. Under V8's default for these
 * workers (48 MB: two 16 MB semi-spaces) many are promoted first, and the old generation's
 * marking and compaction run on V8's helper threads, whose CPU time the worker's own does not
 * show but which take the core the second worker needs. At 128 MB (two 64 MB semi-spaces, V8's
 * largest) they die young: bench/content-shapes.ts with BENCH_YOUNG_MB=48,64,128 (2026-11-29
 * 14:00, 2 cores) had the 1.9 MB tables in parts on all workers at 6.2 s wall / 10.4 s process
 * CPU against 9.2 / 16.0, nested lists at 6.5 / 11.1 against 11.1 / 19.5, no shape costing more;
 * the growth table's inputs over 64 KB cost less too. The foreground lane's 3 MB costs more than
 * either (the seven shapes in parts on all workers, 14:35: 79.5 s of process CPU at 3 MB, 63.9 s
 * at 48, 44.6 s at 128); bench/content-gc.ts counts the collections behind it. The price is a
 * higher peak of memory while a large document converts (the semi-spaces' 96 MB more per worker,
 * and about as much again measured), all returned when the idle worker ends (idleTimeout):
 * docs/memory.md.
 */
function backgroundLimits(youngGenerationMb: number): ResourceLimits {
  return { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: youngGenerationMb };
}

/**
 * How long, in wall-clock time, a conversion may take for each ms of CPU budget: a niced worker
 * on a busy machine gets a share of a core, not all of it, but it must end some time.
 */
const WALL_CEILING = 3;

/**
 * A turn that comes with less budget left than this is not taken: the document would be refused
 * as too complex (400) for the time it spent waiting, which is not its fault (503 instead).
 */
const MIN_TURN_MS = 250;

/** Shortest pause between two looks at a worker's CPU time. */
const MIN_RECHECK_MS = 20;

/**
 * Documents up to this size (most articles are a few to a few dozen KB) convert at the normal
 * priority, so a write's latency does not depend on what else the machine converts; larger ones
 * in the background lane (with its own young generation, see above). Two lanes are two thread
 * pools (a thread's priority, once lowered, cannot be raised again without privileges); the fair
 * queue bounds them together.
 */
const BACKGROUND_FROM_BYTES = 64 * 1024;

type Lane = 'foreground' | 'background';

type Workers = Piscina<PoolTask, PoolResult>;

/** A conversion and how it went (`ContentPool.renderMeasured`). */
export interface ConversionMeasure {
  output: RenderOutput;
  parts: number;
  partsByHelpers: number;
  cpuMs: number;
}

/**
 * What converting code needs of the process's conversions: the pool itself in the REST thread,
 * its link over a MessagePort in the console's thread (conversions-link.ts). `queueFull` may
 * answer later there, so callers await it.
 */
export interface Conversions {
  render(input: RenderInput, owner?: string): Promise<RenderOutput>;
  rewriteImageSources(html: string, rehosted: Record<string, string>, owner?: string): Promise<string>;
  diffZones(before: ArticleZones, after: ArticleZones, owner?: string): Promise<ZonesDiff>;
  queueFull(owner: string): boolean | Promise<boolean>;
}

/**
 * The process's conversions off the event loop: built once by the composition root and handed
 * to whoever converts (two pools would each claim the cores), the console's thread included
 * (through conversions-link.ts). Worker threads start on demand.
 */
export class ContentPool implements Conversions {
  private readonly lanes: Partial<Record<Lane, Workers>> = {};
  private readonly queue: FairQueue;

  constructor(private readonly settings: ContentPoolSettings) {
    this.queue = new FairQueue({
      inFlight: this.workerCount(),
      inFlightPerKey: settings.threads,
      waitingPerKey: settings.waitingPerAccount,
      waitingTotal: settings.waitingTotal,
    });
  }

  /**
   * One worker more than `threads`, which no single account may use: while one account keeps
   * every regular worker busy with slow documents, another account's document still starts at
   * once instead of waiting for one of them (a 1 MB document may take its whole 11 s budget).
   * It costs a worker's memory and, while two accounts convert, a core shared with the event loop.
   */
  private workerCount(): number {
    return this.settings.threads + 1;
  }

  private laneOf(bytes: number): Lane {
    return bytes > BACKGROUND_FROM_BYTES ? 'background' : 'foreground';
  }

  private workers(lane: Lane): Workers {
    this.lanes[lane] ??= new Piscina<PoolTask, PoolResult>({
      filename: this.settings.workerPath,
      // The foreground lane keeps a warm worker; the background one starts them when needed.
      minThreads: lane === 'foreground' ? 1 : 0,
      maxThreads: this.workerCount(),
      idleTimeout: 60_000,
      ...WORKER_WAIT,
      resourceLimits:
        lane === 'foreground'
          ? { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: FOREGROUND_YOUNG_GENERATION_MB }
          : backgroundLimits(this.settings.backgroundYoungGenerationMb),
      workerData: {
        nice: lane === 'background' ? this.settings.nice : 0,
        reuseParsedBlocks: this.settings.reuseParsedBlocks,
        parseInParts: this.settings.parseInParts ?? 'shared',
        partsFromChars: this.settings.partsFromChars,
      } satisfies WorkerSettings,
    });
    return this.lanes[lane];
  }

  /**
   * Whether a document of `owner` would be refused right now: lets the transport answer 503
   * before reading a body that could not be converted anyway (a 1 MB JSON parse per refusal).
   */
  queueFull(owner: string): boolean {
    return this.queue.wouldRefuse(owner);
  }

  /** Whether `queueFull` is true for some owner now (rest-api.ts then checks the caller before the body). */
  someQueueFull(): boolean {
    return this.queue.refusesAnyKey();
  }

  /** Documents waiting for a worker (metrics). */
  depth(): number {
    return this.queue.size + Object.values(this.lanes).reduce((sum, pool) => sum + pool.queueSize, 0);
  }

  /**
   * Markdown to sanitized HTML (pipeline.ts). `owner` is whose turn the document takes in the
   * fair queue (the account's id); documents without one share a single turn.
   */
  async render(input: RenderInput, owner = ''): Promise<RenderOutput> {
    return (await this.renderMeasured(input, owner)).output;
  }

  /**
   * `render`, with how the conversion went: the parts its parse was shared in (1: parsed whole by
   * its worker; parallel-parse.ts), how many of them other workers parsed, and the CPU time of all
   * the threads that worked on it.
   */
  async renderMeasured(input: RenderInput, owner = ''): Promise<ConversionMeasure> {
    const withOrigins = input.selfOrigins ? input : { ...input, selfOrigins: this.settings.selfOrigins };
    let cpuMs = 0;
    const bytes = Buffer.byteLength(input.markdown ?? '', 'utf8');
    const result = (await this.runBudgeted(
      bytes,
      owner,
      (started) => ({ input: withOrigins, owner, started }),
      (used) => (cpuMs = used),
    )) as RenderResult;
    if (!result.ok) throw new ContentRejectedError(result.rejection);
    parsedCharacters.inc({ source: 'reused' }, result.parse.reused);
    parsedCharacters.inc({ source: 'parsed' }, result.parse.parsed);
    const { parts, partsByHelpers } = result.parse;
    return { output: result.output, parts, partsByHelpers, cpuMs };
  }

  /**
   * `html` (the `html` of a conversion) with its external image sources replaced as a
   * conversion with `rehosted` would have (rewrite.ts): rehosting after a conversion without
   * converting again. Parsing html is linear but not free (hundreds of ms for a 1 MB article),
   * so it runs in the pool under the same budget as a conversion of that size.
   */
  async rewriteImageSources(html: string, rehosted: Record<string, string>, owner = ''): Promise<string> {
    if (Object.keys(rehosted).length === 0 || !html.includes('<img')) return html;
    const result = (await this.runBudgeted(Buffer.byteLength(html, 'utf8'), owner, (started) => ({
      rewrite: { html, rehosted },
      started,
    }))) as RewriteResult;
    if (!result.ok) throw new ContentRejectedError(result.rejection);
    return result.html;
  }

  /**
   * Two renderings of an article compared block by block (block-diff.ts) for the console's
   * "what changes on publish": linear in memory and bounded in work, but still up to a few
   * hundred ms of a core for a large article, so it takes a turn in the pool like a conversion
   * of that size (same fair queue, lanes and time budget) instead of running on the event loop.
   */
  async diffZones(before: ArticleZones, after: ArticleZones, owner = ''): Promise<ZonesDiff> {
    const bytes = [before, after].reduce(
      (sum, z) => sum + Buffer.byteLength(z.cover) + Buffer.byteLength(z.body) + Buffer.byteLength(z.tags),
      0,
    );
    const result = (await this.runBudgeted(bytes, owner, (started) => ({
      diff: { before, after },
      started,
    }))) as DiffResult;
    return result.zones;
  }

  /** Stops every worker (shutdown). */
  async close(): Promise<void> {
    const closing = Object.values(this.lanes);
    for (const lane of Object.keys(this.lanes) as Lane[]) delete this.lanes[lane];
    await Promise.all(closing.map((pool) => pool.destroy()));
  }

  private async runBudgeted(
    bytes: number,
    owner: string,
    task: (started: MessagePort) => PoolTask,
    measured?: (cpuMs: number) => void,
  ): Promise<PoolResult> {
    const lane = this.laneOf(bytes);
    const workers = this.workers(lane);
    // Traces on: the document's spans (conversion-spans.ts); off, nothing is built for them.
    const spans = TRACING ? conversionSpans(bytes, lane) : undefined;
    const abort = new AbortController();
    const { port1, port2 } = new MessageChannel();
    const budget = timeBudgetMs(bytes);
    const queuedAt = Date.now();
    let remaining = budget;
    let started = false;
    // Time spent waiting for a turn is part of the document's budget; a worker's start-up (a
    // cold worker loads the whole pipeline) is not, as it is not the document's doing.
    const timer = setTimeout(() => abort.abort(), budget);
    // The CPU time of every thread working on the document counts (conversion-cpu.ts): its
    // worker's, and that of the workers parsing parts of it (part-helpers.ts).
    let watch: ConversionCpuWatch | undefined;
    let helperFault: unknown;
    const dropHelpers: (() => void)[] = [];
    port1.on('message', (message: WorkerStarted | PartsOffer) => {
      if ('parts' in message) {
        if (!watch || abort.signal.aborted) return;
        const run = (helperTask: PoolTask, transferList: MessagePort[]) =>
          workers.run(helperTask, { signal: abort.signal, transferList });
        const failed = (error: unknown) => {
          helperFault = error;
          abort.abort();
        };
        dropHelpers.push(
          queuePartHelpers(message, { queue: this.queue, owner, run, signal: abort.signal, watch, failed }),
        );
        return;
      }
      started = true;
      watch = new ConversionCpuWatch(remaining, WALL_CEILING * remaining, MIN_RECHECK_MS, () => abort.abort());
      watch.share().started(message);
    });
    const stopTimer = conversionSeconds.startTimer();
    try {
      const queued = this.queue.enqueue(owner, () => {
        if (abort.signal.aborted) throw new ConversionBusyError();
        clearTimeout(timer);
        remaining = budget - (Date.now() - queuedAt);
        if (remaining < MIN_TURN_MS) throw new ConversionBusyError();
        return workers.run(spans ? spans.turn(task(port2)) : task(port2), {
          signal: abort.signal,
          transferList: [port2],
        });
      });
      const gaveUp = new Promise<never>((_, reject) => {
        abort.signal.addEventListener('abort', () => {
          if (queued.cancel()) reject(new ConversionBusyError());
        });
      });
      return await Promise.race([queued.result, gaveUp]);
    } catch (error) {
      spans?.failed(error);
      if (helperFault !== undefined)
        throw isOutOfMemory(helperFault) ? new ContentRejectedError(REJECT.memory) : helperFault;
      if (error instanceof FairQueueFullError || error instanceof ConversionBusyError) throw new ConversionBusyError();
      if (abort.signal.aborted) throw started ? new ContentRejectedError(REJECT.timeBudget) : new ConversionBusyError();
      if (isOutOfMemory(error)) throw new ContentRejectedError(REJECT.memory);
      throw error;
    } finally {
      spans?.end();
      stopTimer();
      clearTimeout(timer);
      if (watch) measured?.(watch.usedMs());
      watch?.stop();
      for (const drop of dropHelpers) drop();
      port1.close();
    }
  }
}

function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}
