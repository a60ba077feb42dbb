/**
 * The two article writes against their own physical limit, in one interleaved run:
 * `POST /posts` and `PATCH /posts/{id}` of the service against bench/support/bare-write-server.ts
 * (node:http + pg, the same admission statement, the same conversion pipeline in the same
 * worker pool, the insert or update in one transaction, no framework), on the same database,
 * for the benchmark article (about 3 KB of Markdown) and for a 100 KB one. The 3 KB POST runs
 * twice: with the same text each time (what an import or a retry sends, and the shape of the
 * earlier runs) and with new text in every block; a PATCH changes the article's last paragraph.
 *
 *   npm run build && npx tsx bench/write-vs-bare.ts [--rounds 3] [--slices 4] [--slice-seconds 3] [--concurrency 8]
 *     [--large-concurrency 1] [--only TEXT]   (--only: the scenarios whose name contains TEXT)
 *
 * Per round and scenario: a warm-up on each side, then alternating slices (the side that starts
 * alternates per slice). Ratios service / bare are per round, reported as min / median / max.
 * CPU per request is read from /proc over each slice: the server's process (its conversion
 * worker threads included) plus every PostgreSQL process of the shared cluster (only the side
 * being measured is writing during its slice). PATCH requests go round-robin over 64 articles
 * per side, so they do not queue on one row lock. Target: service ≥ 1.2 × bare req/s.
 *
 * Both sides convert with CONTENT_WORKER_NICE=0 unless the variable is set: on a machine whose
 * cores are taken by other work, the 100 KB documents (background lane, nice 10 by default)
 * would otherwise spend their conversion budget waiting for a core and answer 503 on both sides,
 * which measures the machine, not the write path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cli, ROOT } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';
import { mergeResults, runLoad, type LoadRequest, type LoadResult } from './load';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    slices: { type: 'string', default: '4' },
    'slice-seconds': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    'large-concurrency': { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const SLICES = Number(values.slices);
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);
/**
 * 100 KB documents take a conversion worker for tens of milliseconds each, and the pool has one
 * worker per spare core: at 8 in flight, most would wait past their conversion budget and be
 * refused (503) on both sides, by design (backpressure). One in flight keeps the worker busy.
 */
const LARGE_CONCURRENCY = Number(values['large-concurrency']);
const PATCH_TARGETS = 64;
const REFUSALS = [400, 503];

/** About 100 KB of Markdown: the benchmark article's paragraphs repeated under numbered sections. */
const LARGE_MARKDOWN = (() => {
  let out = '';
  for (let i = 1; out.length < 100_000; i++) out += `\n\n## Part ${i}\n\n${BENCH_MARKDOWN}`;
  return out;
})();

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
  } catch {
    return 0;
  }
}
/** CPU of the PostgreSQL cluster: its postmaster and every process whose parent it is. */
function clusterCpuSeconds(postmaster: number): number {
  let total = cpuSeconds(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) total += cpuSeconds(Number(entry));
    } catch {
      /* gone */
    }
  }
  return total;
}

interface Side {
  name: 'service' | 'bare';
  base: string;
  pid: number;
  patchIds: string[];
}
interface Scenario {
  name: string;
  request: (side: Side, i: number) => LoadRequest;
  expect: number;
  concurrency: number;
}

async function main() {
  const conversionEnv = { CONTENT_WORKER_NICE: process.env.CONTENT_WORKER_NICE ?? '0' };
  const bench = await startBenchService('publishing-bench-write-bare-', conversionEnv);
  const { db, service, env } = bench;
  const high = ['read_per_min', 'write_per_min', 'publish_per_min'].flatMap((n) => ['--limit', `${n}=100000000`]);
  let accounts = 0;
  const accountHeaders = async () => {
    const handle = `bench-${++accounts}`;
    const account = (await cli(env, ['account', 'create', handle, ...high])).json as { token: string };
    return { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' };
  };
  const headers = await accountHeaders();
  const bare = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/support/bare-write-server.ts'), db.url],
    { cwd: ROOT, env: { ...process.env, ...conversionEnv }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const bareInfo = await new Promise<{ port: number; pid: number }>((resolve) =>
      bare.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()))),
    );
    const postmaster = Number(
      readFileSync(path.join(bench.dataDir, 'bench-pg', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    const sides: Side[] = [
      { name: 'service', base: service.baseUrl, pid: service.process.pid!, patchIds: [] },
      { name: 'bare', base: `http://127.0.0.1:${bareInfo.port}`, pid: bareInfo.pid, patchIds: [] },
    ];
    for (const side of sides) {
      for (let i = 0; i < PATCH_TARGETS; i++) {
        const res = await fetch(`${side.base}/api/v1/author/posts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: `Patch target ${side.name} ${i}`, markdown: BENCH_MARKDOWN, tags: ['bench'] }),
        });
        const body = (await res.json()) as { id: string };
        if (res.status !== 201) throw new Error(`${side.name}: seeding answered ${res.status} ${JSON.stringify(body)}`);
        side.patchIds.push(body.id);
      }
    }
    let serial = 0;
    // Each POST scenario writes as an account of its own: a create whose derived slug is taken
    // reads the author's slugs with that prefix (the bare server on every create), so articles
    // left by an earlier scenario would slow the next one down.
    const post = (markdown: string | ((n: number) => string), as: Record<string, string>) => (side: Side) => ({
      method: 'POST',
      path: '/api/v1/author/posts',
      headers: as,
      body: JSON.stringify({
        title: `${BENCH_TITLE} ${side.name} ${serial++}`,
        markdown: typeof markdown === 'string' ? markdown : markdown(serial),
        tags: ['performance', 'postgresql'],
      }),
    });
    // Every block of the article changed (each capitalized word numbered): nothing for the
    // service's parsed-block reuse to take, as for an article never written before.
    const newText = (n: number) => BENCH_MARKDOWN.replace(/\b[A-Z][a-z]*\b/g, (word) => `${word}${n}`);
    const patch = (markdown: string) => (side: Side, i: number) => ({
      method: 'PATCH',
      path: `/api/v1/author/posts/${side.patchIds[i % PATCH_TARGETS]}`,
      headers,
      body: JSON.stringify({ title: `Edited ${serial++}`, markdown: `${markdown}\n\nEdit ${serial}.` }),
    });
    const allScenarios: Scenario[] = [
      {
        name: 'POST /posts (3 KB article)',
        request: post(BENCH_MARKDOWN, await accountHeaders()),
        expect: 201,
        concurrency: CONCURRENCY,
      },
      {
        name: 'POST /posts (3 KB article, new text each time)',
        request: post(newText, await accountHeaders()),
        expect: 201,
        concurrency: CONCURRENCY,
      },
      {
        name: 'POST /posts (100 KB article)',
        request: post(LARGE_MARKDOWN, await accountHeaders()),
        expect: 201,
        concurrency: LARGE_CONCURRENCY,
      },
      {
        name: 'PATCH /posts/{id} (3 KB article)',
        request: patch(BENCH_MARKDOWN),
        expect: 200,
        concurrency: CONCURRENCY,
      },
      {
        name: 'PATCH /posts/{id} (100 KB article)',
        request: patch(LARGE_MARKDOWN),
        expect: 200,
        concurrency: LARGE_CONCURRENCY,
      },
    ];

    const scenarios = allScenarios.filter((s) => values.only === undefined || s.name.includes(values.only));
    if (scenarios.length === 0) throw new Error(`--only ${values.only}: no scenario has that in its name`);

    type Measured = LoadResult & { ok: number; cpuUsPerReq: number; nodeUsPerReq: number };
    const measure = async (s: Scenario, side: Side, durationMs: number): Promise<Measured> => {
      const node0 = cpuSeconds(side.pid);
      const pg0 = clusterCpuSeconds(postmaster);
      const r = await runLoad(side.base, (i) => s.request(side, i), { concurrency: s.concurrency, durationMs });
      const node = cpuSeconds(side.pid) - node0;
      const pgCpu = clusterCpuSeconds(postmaster) - pg0;
      // Refusals of the conversion pipeline under CPU starvation, on either side alike: 503 (the
      // document waited past its budget for a worker) and 400 (its conversion ran past the wall-
      // clock ceiling of its CPU budget). Counted and shown, never as throughput.
      if (Object.keys(r.statuses).some((k) => Number(k) !== s.expect && !REFUSALS.includes(Number(k))))
        throw new Error(`${side.name} ${s.name}: unexpected statuses ${JSON.stringify(r.statuses)}`);
      const ok = r.statuses[s.expect] ?? 0;
      return {
        ...r,
        ok,
        rps: ok / r.seconds,
        cpuUsPerReq: ((node + pgCpu) * 1e6) / Math.max(ok, 1),
        nodeUsPerReq: (node * 1e6) / Math.max(ok, 1),
      };
    };

    const rounds: Record<string, { service: Measured; bare: Measured }>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const out: Record<string, { service: Measured; bare: Measured }> = {};
      for (const s of scenarios) {
        for (const side of sides) await measure(s, side, 1500); // warm-up
        const parts: Record<Side['name'], Measured[]> = { service: [], bare: [] };
        for (let slice = 0; slice < SLICES; slice++) {
          const order = (slice + round) % 2 === 0 ? sides : [...sides].reverse();
          for (const side of order) parts[side.name].push(await measure(s, side, SLICE_MS));
        }
        const merge = (ms: Measured[]): Measured => {
          const merged = mergeResults(ms);
          const ok = ms.reduce((n, m) => n + m.ok, 0);
          const avg = (f: (m: Measured) => number) => ms.reduce((n, m) => n + f(m) * m.ok, 0) / Math.max(ok, 1);
          return {
            ...merged,
            ok,
            rps: ok / merged.seconds,
            cpuUsPerReq: avg((m) => m.cpuUsPerReq),
            nodeUsPerReq: avg((m) => m.nodeUsPerReq),
          };
        };
        out[s.name] = { service: merge(parts.service), bare: merge(parts.bare) };
      }
      rounds.push(out);
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const f = (x: number, d = 2) => x.toFixed(d);
    const mmm = (xs: number[]) => `${f(Math.min(...xs))} / **${f(median(xs))}** / ${f(Math.max(...xs))}`;
    console.log(
      `\n${ROUNDS} rounds × ${SLICES} interleaved slices of ${SLICE_MS / 1000} s per side, concurrency ${CONCURRENCY} (100 KB: ${LARGE_CONCURRENCY}); ` +
        `large article ${LARGE_MARKDOWN.length} characters of Markdown\n`,
    );
    console.log(
      '| write | bare req/s | service req/s | req/s ratio (min / median / max) | p50 ms bare / service | p99 ms bare / service | p99 ratio | CPU µs/req bare / service (of which Node) | CPU/req ratio | refused (400 + 503) bare / service |',
    );
    console.log('| --- | ---: | ---: | :---: | ---: | ---: | :---: | ---: | :---: | ---: |');
    const refused = (name: string, side: Side['name']) =>
      rounds.reduce((n, r) => n + REFUSALS.reduce((m, code) => m + (r[name]![side].statuses[code] ?? 0), 0), 0);
    const rate = (x: number) => f(x, x < 10 ? 2 : 0);
    for (const s of scenarios) {
      const pick = (side: Side['name'], g: (m: Measured) => number) => median(rounds.map((r) => g(r[s.name]![side])));
      const ratio = (g: (m: Measured) => number) => rounds.map((r) => g(r[s.name]!.service) / g(r[s.name]!.bare));
      console.log(
        `| ${s.name} | ${rate(pick('bare', (m) => m.rps))} | ${rate(pick('service', (m) => m.rps))} | ${mmm(ratio((m) => m.rps))} | ` +
          `${f(
            pick('bare', (m) => m.p50),
            1,
          )} / ${f(
            pick('service', (m) => m.p50),
            1,
          )} | ${f(
            pick('bare', (m) => m.p99),
            1,
          )} / ${f(
            pick('service', (m) => m.p99),
            1,
          )} | ` +
          `${f(median(ratio((m) => m.p99)))} | ${f(
            pick('bare', (m) => m.cpuUsPerReq),
            0,
          )} (${f(
            pick('bare', (m) => m.nodeUsPerReq),
            0,
          )}) / ` +
          `${f(
            pick('service', (m) => m.cpuUsPerReq),
            0,
          )} (${f(
            pick('service', (m) => m.nodeUsPerReq),
            0,
          )}) | ${f(median(ratio((m) => m.cpuUsPerReq)))} | ` +
          `${refused(s.name, 'bare')} / ${refused(s.name, 'service')} |`,
      );
    }
    console.log('\nTarget: service req/s ≥ 1.2 × bare on POST and PATCH.');
  } finally {
    bare.kill('SIGTERM');
    await bench.stop();
  }
}

runBench(main);
