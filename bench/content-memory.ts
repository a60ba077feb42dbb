/**
 * What converting one document near the contract's 2 MB costs the process in memory, for each
 * young generation of the background lane's workers (server/content/pool.ts): each shape of
 * tests/unit/content/shapes.ts converted once, through the service's pool (parts shared with the
 * free workers), in a process of its own so that nothing an earlier conversion grew is counted
 * or hidden. Per conversion: the process's RSS before it (pool started, its workers warm), its
 * peak during it (VmHWM, reset just before), and after the pool's workers have ended (what an
 * idle instance keeps once the background workers' idleTimeout has passed).
 *
 *   npx tsx bench/content-memory.ts [BENCH_YOUNG_MB=48,128] [BENCH_SHAPES=...] [BENCH_SHAPE_BYTES=1900000]
 *
 * `repeat [minutes]` (5 when not given): one process converting the GFM tables and nested lists
 * shapes, two at once (both background workers busy, parsing their parts), for that long with
 * CONTENT_BACKGROUND_YOUNG_MB's young generation (or BENCH_YOUNG_MB's first); the largest RSS
 * of each minute, then the RSS once the idle workers have ended (the pool's idleTimeout, 60 s):
 * that large documents, converted back to back, level off rather than accumulate, and that an
 * idle instance gives it back.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ContentPool, contentPoolSettings } from '../server/content';
import { DOCUMENT_SHAPES } from '../tests/unit/content/shapes';
import { table } from './content-shapes';

const rssMb = (field: 'VmRSS' | 'VmHWM') =>
  Number(readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))![1]) / 1024;

/** In the child: convert one shape, print its figures as JSON. */
async function measureOne(shape: string, young: number, bytes: number): Promise<void> {
  const pool = new ContentPool({ ...contentPoolSettings(), backgroundYoungGenerationMb: young });
  // Start and warm the background lane's workers (100 KB is over its threshold), as a running
  // instance's would be after its first large article.
  const warm = DOCUMENT_SHAPES.prose!(100_000);
  await Promise.all([pool.render({ markdown: warm, title: 'w' }), pool.render({ markdown: warm, title: 'w' })]);
  const markdown = DOCUMENT_SHAPES[shape]!(bytes);
  const before = rssMb('VmRSS');
  writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
  const started = performance.now();
  await pool.render({ markdown, title: 'Bench' }, 'bench');
  const wallMs = performance.now() - started;
  const peak = rssMb('VmHWM');
  const after = rssMb('VmRSS');
  await pool.close();
  const ended = rssMb('VmRSS');
  console.log(JSON.stringify({ before, peak, after, ended, wallMs }));
}

async function repeat(minutes: number): Promise<void> {
  const settings = contentPoolSettings();
  const young = Number(process.env.BENCH_YOUNG_MB?.split(',')[0] ?? settings.backgroundYoungGenerationMb);
  const pool = new ContentPool({ ...settings, backgroundYoungGenerationMb: young });
  const docs = [DOCUMENT_SHAPES['GFM tables']!(1_900_000), DOCUMENT_SHAPES['nested lists']!(1_900_000)];
  const rows: (string | number)[][] = [];
  const start = rssMb('VmRSS');
  const ends = performance.now() + minutes * 60_000;
  let conversions = 0;
  for (let minute = 1; performance.now() < ends; minute++) {
    writeFileSync('/proc/self/clear_refs', '5');
    const minuteEnds = Math.min(ends, performance.now() + 60_000);
    let done = 0;
    while (performance.now() < minuteEnds) {
      await Promise.all(docs.map((markdown, k) => pool.render({ markdown, title: 'Bench' }, `account ${k}`)));
      done += 2;
    }
    conversions += done;
    rows.push([minute, done, rssMb('VmHWM').toFixed(0), rssMb('VmRSS').toFixed(0)]);
  }
  await new Promise((resolve) => setTimeout(resolve, 70_000));
  const idle = rssMb('VmRSS');
  await pool.close();
  console.log(
    `\n## RSS (MB) converting 1.9 MB tables and lists two at a time for ${minutes} min, young generation ${young} MB (started at ${start.toFixed(0)} MB)\n`,
  );
  table(['minute', 'conversions', 'peak RSS', 'RSS at its end'], rows);
  console.log(`\n${conversions} conversions; RSS 70 s after the last (idle workers ended): ${idle.toFixed(0)} MB`);
}

async function main(): Promise<void> {
  const bytes = Number(process.env.BENCH_SHAPE_BYTES ?? 1_900_000);
  // 48 MB: V8's default for these workers.
  const youngSizes = (process.env.BENCH_YOUNG_MB ?? '48,128').split(',');
  const only = process.env.BENCH_SHAPES?.split(',');
  const rows: (string | number)[][] = [];
  for (const shape of Object.keys(DOCUMENT_SHAPES)) {
    if (only && !only.includes(shape)) continue;
    for (const young of youngSizes) {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', shape, young, String(bytes)],
        { encoding: 'utf8' },
      );
      const m = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
      const f = (mb: number) => mb.toFixed(0);
      rows.push([
        shape,
        young,
        f(m.before!),
        f(m.peak!),
        f(m.peak! - m.before!),
        f(m.after!),
        f(m.ended!),
        (m.wallMs! / 1000).toFixed(1),
      ]);
    }
  }
  console.log("\n## Process RSS (MB) converting one document near 2 MB, by the background lane's young generation\n");
  table(['shape', 'young MB', 'RSS before', 'peak', 'peak - before', 'after', 'workers ended', 'wall s'], rows);
}

if (process.argv[2] === 'child') {
  const [, , , shape, young, bytes] = process.argv;
  await measureOne(shape!, Number(young), Number(bytes));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'ignore' });
  if (process.argv[2] === 'repeat') await repeat(Number(process.argv[3] ?? 5));
  else await main();
}
