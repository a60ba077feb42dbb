/**
 * What V8's collector costs one document near the contract's 2 MB, by the background lane's
 * young generation (server/content/pool.ts): each conversion in a process of its own started
 * with `--trace-gc`, whose lines give every collection's pause on the thread that allocated
 * (scavenges; mark-compacts with their incremental marking steps), summed over the process's
 * threads; beside them the conversion's thread CPU (as the pool counts it against the budget)
 * and the process's CPU, whose difference is mostly V8's helper threads (parallel scavenging,
 * concurrent marking and sweeping), which no pause shows.
 *
 *   npx tsx bench/content-gc.ts [BENCH_YOUNG_MB=3,48,128] [BENCH_SHAPES="GFM tables,nested lists"]
 *     [BENCH_PARTS=off,alone,shared]   (one worker parses it whole; in parts; in parts on all workers)
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ContentPool, contentPoolSettings } from '../server/content';
import type { PartsMode } from '../server/content/task';
import { DOCUMENT_SHAPES } from '../tests/unit/content/shapes';
import { table } from './content-shapes';

const BYTES = 1_900_000;

/** In the child: warm the background lane, convert once, print the measures after a marker. */
async function child(shape: string, young: number, parts: PartsMode): Promise<void> {
  const pool = new ContentPool({ ...contentPoolSettings(), backgroundYoungGenerationMb: young, parseInParts: parts });
  const warm = DOCUMENT_SHAPES.prose!(100_000);
  await Promise.all([pool.render({ markdown: warm, title: 'w' }), pool.render({ markdown: warm, title: 'w' })]);
  const markdown = DOCUMENT_SHAPES[shape]!(BYTES);
  console.log('BENCH-START');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const measured = await pool.renderMeasured({ markdown, title: 'Bench' }, 'bench');
  const used = process.cpuUsage(cpu);
  console.log(
    `BENCH-END ${JSON.stringify({ wallMs: performance.now() - started, threadMs: measured.cpuMs, processMs: (used.user + used.system) / 1000 })}`,
  );
  await pool.close();
}

interface GcSums {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
}

/** Sums the --trace-gc lines between the markers (every isolate of the process). */
function sumGc(lines: string[]): GcSums {
  const sums: GcSums = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0 };
  for (const line of lines) {
    const pause = /MB, ([\d.]+) \/ [\d.]+ ms/.exec(line);
    if (!pause) continue;
    if (/: (Scavenge|Minor)/.test(line)) {
      sums.scavenges++;
      sums.scavengeMs += Number(pause[1]);
    } else if (/: Mark-Compact/.test(line)) {
      const steps = /\(\+ ([\d.]+) ms in \d+ steps/.exec(line);
      sums.markCompacts++;
      sums.markCompactMs += Number(pause[1]) + Number(steps?.[1] ?? 0);
    }
  }
  return sums;
}

async function main(): Promise<void> {
  const youngSizes = (process.env.BENCH_YOUNG_MB ?? '3,48,128').split(',');
  const shapes = (process.env.BENCH_SHAPES ?? 'GFM tables,nested lists').split(',');
  const modes = (process.env.BENCH_PARTS ?? 'off,alone,shared').split(',') as PartsMode[];
  const rows: (string | number)[][] = [];
  for (const shape of shapes) {
    for (const mode of modes) {
      for (const young of youngSizes) {
        const out = execFileSync(
          process.execPath,
          ['--trace-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'child', shape, young, mode],
          { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
        ).split('\n');
        const from = out.indexOf('BENCH-START');
        const end = out.findIndex((line) => line.startsWith('BENCH-END '));
        const m = JSON.parse(out[end]!.slice('BENCH-END '.length)) as Record<string, number>;
        const gc = sumGc(out.slice(from, end));
        const s = (ms: number) => (ms / 1000).toFixed(1);
        rows.push([
          shape,
          { off: 'one worker, whole', alone: 'one worker, in parts', shared: 'all workers, in parts' }[mode],
          young,
          s(m.wallMs!),
          s(m.threadMs!),
          s(m.processMs!),
          s(m.processMs! - m.threadMs!),
          `${gc.scavenges} / ${s(gc.scavengeMs)}`,
          `${gc.markCompacts} / ${s(gc.markCompactMs)}`,
        ]);
      }
    }
  }
  console.log("\n## V8's collector converting one 1.9 MB document, by the background lane's young generation\n");
  table(
    [
      'shape',
      'path',
      'young MB',
      'wall s',
      'thread CPU s',
      'process CPU s',
      'process - thread s',
      'scavenges / pause s',
      'mark-compacts / pause + steps s',
    ],
    rows,
  );
}

if (process.argv[2] === 'child') {
  const [, , , shape, young, parts] = process.argv;
  await child(shape!, Number(young), parts as PartsMode);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'ignore' });
  await main();
}
