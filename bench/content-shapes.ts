/**
 * Documents of each ordinary shape near the contract's 2 MB limit (tests/unit/content/shapes.ts)
 * through the real worker pool with its real budget, on one worker and on all of them: a pool
 * whose workers parse a document whole (`parseInParts: 'off'`, "one"), one whose worker parses
 * it in parts by itself ('alone': what parts alone change, less memory live at once), and the
 * service's pool, whose free workers parse parts of a large document meanwhile ('shared', "all";
 * server/content/parallel-parse.ts). Target: on this 2-core machine the 1.9 MB tables and
 * nested-lists shapes in at most 0.6x the wall-clock time of one worker, every shape converted,
 * with the same output.
 *
 * Columns per pool: wall-clock s; thread CPU s (the CPU time of the threads that worked on the
 * document, as the pool counts it against the budget: ContentPool.renderMeasured); process CPU s
 * (the whole process, the event loop included); the parts of its parse (how many helpers parsed).
 * A refused document is converted once more in a thread of its own without a budget, for its
 * full cost. Run alone with `npx tsx bench/content-shapes.ts`, or as part of bench/content.ts;
 * BENCH_SHAPE_BYTES (1,900,000), BENCH_SHAPES (names, comma-separated), BENCH_ROUNDS (1: the
 * fastest of each is kept, the pools taking turns to go first), BENCH_YOUNG_MB (the background
 * lane's young generation: comma-separated sizes in MB, 48 being V8's default for these workers,
 * each a row of its own; CONTENT_BACKGROUND_YOUNG_MB's when not given).
 */
import { execFileSync } from 'node:child_process';
import { ContentPool, contentPoolSettings, ContentRejectedError } from '../server/content';
import type { ConversionMeasure } from '../server/content/pool';
import { timeBudgetMs } from '../server/content/conversion-bounds';
import { DOCUMENT_SHAPES } from '../tests/unit/content/shapes';
import { startConversionThread, type ConversionThread } from './support/conversion-thread';

const MB = 1_000_000;

export function table(headers: string[], rows: (string | number)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const [k, row] of cells.entries()) {
    console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
    if (k === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

interface Run {
  wallMs: number;
  threadCpuMs: number;
  processCpuMs: number;
  result: string;
  parts: string;
  html?: string;
}

async function convert(pool: ContentPool, markdown: string): Promise<Run> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let measured: ConversionMeasure | undefined;
  let result = 'converted';
  try {
    measured = await pool.renderMeasured({ markdown, title: 'Bench' }, 'bench');
  } catch (error) {
    if (!(error instanceof ContentRejectedError)) throw error;
    result = `refused: ${error.message.slice(10, 50)}`;
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    wallMs,
    threadCpuMs: measured?.cpuMs ?? NaN,
    processCpuMs: (used.user + used.system) / 1000,
    result,
    parts: measured ? `${measured.parts} (${measured.partsByHelpers})` : '-',
    html: measured?.output.html,
  };
}

const fastest = (a: Run | undefined, b: Run) => (!a || b.wallMs < a.wallMs ? b : a);

export async function shapesBench(): Promise<void> {
  const bytes = Number(process.env.BENCH_SHAPE_BYTES ?? 1_900_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const only = process.env.BENCH_SHAPES?.split(',');
  const youngSizes = process.env.BENCH_YOUNG_MB?.split(',').map(Number) ?? [
    contentPoolSettings().backgroundYoungGenerationMb,
  ];
  // For each young generation: one worker whole, one worker in parts, all workers in parts.
  const pools = youngSizes.flatMap((backgroundYoungGenerationMb) =>
    (['off', 'alone', 'shared'] as const).map(
      (parseInParts) => new ContentPool({ ...contentPoolSettings(), parseInParts, backgroundYoungGenerationMb }),
    ),
  );
  const rows: (string | number)[][] = [];
  let unbudgeted: ConversionThread | undefined;
  // Warm: every worker of every pool started and through the pipeline once.
  const warm = DOCUMENT_SHAPES.prose!(700_000);
  await Promise.all(pools.map((pool) => pool.render({ markdown: warm, title: 'w' })));
  for (const [name, build] of Object.entries(DOCUMENT_SHAPES)) {
    if (only && !only.includes(name)) continue;
    const markdown = build(bytes);
    const size = Buffer.byteLength(markdown);
    const runs: (Run | undefined)[] = pools.map(() => undefined);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < pools.length; k++) {
        const i = (k + r) % pools.length;
        runs[i] = fastest(runs[i], await convert(pools[i]!, markdown));
      }
    }
    let needs = '-';
    if (runs.some((run) => run!.result !== 'converted')) {
      unbudgeted ??= await startConversionThread('ours', { pipeline: 'ours' });
      const before = (await unbudgeted.ask({ kind: 'cpu' })).ms;
      await unbudgeted.ask({ kind: 'convert', markdown });
      needs = (((await unbudgeted.ask({ kind: 'cpu' })).ms - before) / 1000).toFixed(1);
    }
    const s = (ms: number) => (Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(1));
    const outputs = runs.map((run) => run!.html).filter((html) => html !== undefined);
    const same = outputs.length < 2 ? '-' : outputs.every((html) => html === outputs[0]) ? 'yes' : 'NO';
    for (const [k, young] of youngSizes.entries()) {
      const [one, alone, all] = runs.slice(3 * k, 3 * k + 3) as [Run, Run, Run];
      rows.push([
        name,
        young,
        (size / MB).toFixed(2),
        (timeBudgetMs(size) / 1000).toFixed(1),
        ...[one, alone, all].flatMap((run) => [s(run.wallMs), s(run.threadCpuMs), s(run.processCpuMs), run.result]),
        all.parts,
        (all.wallMs / one.wallMs).toFixed(2),
        (all.wallMs / alone.wallMs).toFixed(2),
        same,
        needs,
      ]);
    }
  }
  await Promise.all([unbudgeted?.close(), ...pools.map((pool) => pool.close())]);
  const threads = contentPoolSettings().threads;
  console.log(
    `\n## Ordinary documents near 2 MB through the worker pool (its budget): one worker, whole / one worker, in parts / all ${threads + 1} workers\n`,
  );
  table(
    [
      'shape',
      'young MB',
      'MB',
      'budget s (CPU)',
      'one: wall s',
      'one: thread CPU s',
      'one: process CPU s',
      'one: result',
      'alone: wall s',
      'alone: thread CPU s',
      'alone: process CPU s',
      'alone: result',
      'all: wall s',
      'all: thread CPU s',
      'all: process CPU s',
      'all: result',
      'all: parts (by helpers)',
      'all/one wall',
      'all/alone wall',
      'same html',
      'unbudgeted thread CPU s',
    ],
    rows,
  );
  console.log('\ntarget: all/one wall <= 0.6 for GFM tables and nested lists on 2 cores; every shape converted.');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'ignore' });
  await shapesBench();
}
