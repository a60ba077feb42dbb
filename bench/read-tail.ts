/**
 * Where the read tail comes from: `GET /posts/{id}` at 32 connections against the bare
 * `node:http` + `pg` read server and against the service as `npm start` runs it, plus variants of
 * the service that each take one suspect away (its log lines; V8's default young generation),
 * all on one embedded PostgreSQL with 100,000 articles, in interleaved slices. Every server
 * process runs with `bench/support/runtime-probe.mjs`, which reports per slice its garbage
 * collections (the events `--trace-gc` prints: count and pauses by kind), its event-loop delay
 * (1 ms histogram) and CPU time, so the table puts latency next to what the process did.
 *
 *   npm run build && npx tsx bench/read-tail.ts [--posts 100000] [--rounds 3] [--slices 4]
 *     [--slice-seconds 3] [--concurrency 32] [--variants bare,service,silent,semi32] [--callers 1]
 *
 * `--callers N` spreads the requests round-robin over N accounts, each reading its own article
 * with its own token. With N above the concurrency no two requests in flight share a token, so
 * the service can batch none of them (server/data/admission-batches.ts): the figure for many
 * callers each sending one request at a time, where the default (one token at 32 connections)
 * is the figure for one integration sending many at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cli, ROOT } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';
import { seedArticles } from './support/seed-articles';
import { mergeResults, runLoad, type LoadResult } from './load';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    slices: { type: 'string', default: '4' },
    'slice-seconds': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    variants: { type: 'string', default: 'bare,service,silent,semi32' },
    callers: { type: 'string', default: '1' },
    /** Also sample what PostgreSQL's backends wait on during each slice (pg_stat_activity, every 5 ms). */
    waits: { type: 'boolean', default: false },
  },
});
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);
const PROBE = path.join(ROOT, 'bench/support/runtime-probe.mjs');

interface Variant {
  name: string;
  describe: string;
  nodeFlags: string[];
  env: Record<string, string>;
  bare?: boolean;
}
const VARIANTS: Record<string, Variant> = {
  bare: { name: 'bare', describe: 'bare node:http + pg, 3 round trips', nodeFlags: [], env: {}, bare: true },
  service: { name: 'service', describe: 'the service as `npm start` runs it', nodeFlags: [], env: {} },
  silent: {
    name: 'silent',
    describe: 'service, LOG_LEVEL=silent (no request log lines)',
    nodeFlags: [],
    env: { LOG_LEVEL: 'silent' },
  },
  semi32: {
    name: 'semi32',
    describe: 'service, --max-semi-space-size=32 (young generation 32 MB a half)',
    nodeFlags: ['--max-semi-space-size=32'],
    env: {},
  },
  semi64: {
    name: 'semi64',
    describe: 'service, --max-semi-space-size=64',
    nodeFlags: ['--max-semi-space-size=64'],
    env: {},
  },
};

interface Probe {
  wallMs: number;
  cpuMs: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number };
  gc: Record<string, { count: number; totalMs: number; p99Ms: number; maxMs: number }>;
  heapUsedBytes: number;
  newSpaceBytes: number;
  rssBytes: number;
}

interface Running {
  variant: Variant;
  baseUrl: string;
  child: ChildProcess;
  probeFile: string;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function waitReady(url: string, child: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${readFileSync(log, 'utf8')}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ready: ${url}`);
}

async function launch(variant: Variant, dataDir: string, databaseUrl: string): Promise<Running> {
  const port = await freePort();
  const probeFile = path.join(dataDir, `probe-${variant.name}.json`);
  const log = path.join(dataDir, `${variant.name}.log`);
  const fd = openSync(log, 'a');
  const args = variant.bare
    ? [
        '--import',
        PROBE,
        '--import',
        'tsx',
        path.join(ROOT, 'bench/support/bare-read-server.ts'),
        databaseUrl,
        String(port),
      ]
    : [...variant.nodeFlags, '--import', PROBE, path.join(ROOT, 'dist/launcher.mjs')];
  // Output goes to a file, as `npm start > log` would: the benchmark does not read it under load.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', fd, fd],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      RUNTIME_PROBE_OUT: probeFile,
      ...variant.env,
    },
  });
  closeSync(fd);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitReady(variant.bare ? `${baseUrl}/ready` : `${baseUrl}/api/health`, child, log);
  return { variant, baseUrl, child, probeFile };
}

/** Asks the probe for what it saw since the last ask. */
async function readProbe(r: Running): Promise<Probe> {
  const before = existsSync(r.probeFile) ? statSync(r.probeFile).mtimeMs : 0;
  r.child.kill('SIGUSR2');
  for (let i = 0; i < 200; i++) {
    if (existsSync(r.probeFile) && statSync(r.probeFile).mtimeMs !== before) {
      const report = JSON.parse(readFileSync(r.probeFile, 'utf8')) as Probe;
      rmSync(r.probeFile);
      return report;
    }
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`${r.variant.name}: no probe report`);
}

interface Slice {
  load: LoadResult;
  probe: Probe;
  /** Samples of active backends by what they waited on ('running' when on CPU), and the number of samples. */
  waits?: Record<string, number>;
  samples?: number;
}

/**
 * Samples pg_stat_activity while `during` runs: for each active backend of the benchmark's
 * database (not this sampler's own), its wait event, or `running`.
 */
async function sampleWaits<T>(
  client: pg.Client,
  during: Promise<T>,
): Promise<{ result: T; waits: Record<string, number>; samples: number }> {
  const waits: Record<string, number> = {};
  let samples = 0;
  let done = false;
  const finished = during.finally(() => (done = true));
  while (!done) {
    const rows = (
      await client.query<{ wait: string }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'running') AS wait FROM pg_stat_activity
          WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      )
    ).rows;
    samples++;
    for (const r of rows) waits[r.wait] = (waits[r.wait] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { result: await finished, waits, samples };
}

async function main() {
  const bench = await startBenchService('publishing-bench-tail-');
  const running: Running[] = [];
  try {
    const seeded = await seedArticles(bench, { name: 'tail', posts: Number(values.posts) });
    const callers = [{ auth: seeded.auth, postId: seeded.postId }];
    for (let i = 1; i < Number(values.callers); i++) {
      const made = await cli(bench.env, ['account', 'create', `caller-${i}`, '--limit', 'read_per_min=100000000']);
      const auth = { authorization: `Bearer ${(made.json as { token: string }).token}` };
      const res = await fetch(`${bench.service.baseUrl}/api/v1/author/posts`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Caller ${i}`, markdown: 'An article of its own.' }),
      });
      if (res.status !== 201) throw new Error(`caller ${i}: POST answered ${res.status}`);
      callers.push({ auth, postId: ((await res.json()) as { id: string }).id });
    }
    // The seeding instance is not measured; the variants share its database.
    await bench.service.stop();
    for (const name of values.variants!.split(',')) {
      const v = VARIANTS[name];
      if (!v) throw new Error(`unknown variant ${name} (one of ${Object.keys(VARIANTS).join(', ')})`);
      running.push(await launch(v, bench.dataDir, bench.db.url));
    }
    const load = (r: Running, durationMs: number) =>
      runLoad(
        r.baseUrl,
        (i) => {
          const caller = callers[i % callers.length]!;
          return { path: `/api/v1/author/posts/${caller.postId}`, headers: caller.auth };
        },
        {
          concurrency: CONCURRENCY,
          durationMs,
        },
      );
    const slices: Record<string, Slice[]> = {};
    const sampler = values.waits ? new pg.Client({ connectionString: bench.db.url }) : undefined;
    await sampler?.connect();
    const rounds = Number(values.rounds);
    for (let round = 0; round < rounds; round++) {
      for (const r of running) {
        await load(r, 2000); // warm-up
      }
      for (let slice = 0; slice < Number(values.slices); slice++) {
        const order = (slice + round) % 2 === 0 ? running : [...running].reverse();
        for (const r of order) {
          await readProbe(r); // start the probe's slice here
          const sampled = sampler ? await sampleWaits(sampler, load(r, SLICE_MS)) : undefined;
          const result = sampled ? sampled.result : await load(r, SLICE_MS);
          const probe = await readProbe(r);
          if (Object.keys(result.statuses).some((k) => k !== '200'))
            throw new Error(`${r.variant.name}: ${JSON.stringify(result.statuses)}`);
          (slices[r.variant.name] ??= []).push({
            load: result,
            probe,
            waits: sampled?.waits,
            samples: sampled?.samples,
          });
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    await sampler?.end();
    report(running, slices);
  } finally {
    for (const r of running) r.child.kill('SIGTERM');
    await Promise.all(
      running.map((r) => new Promise((res) => (r.child.exitCode !== null ? res(null) : r.child.once('exit', res)))),
    );
    await bench.stop();
  }
}

function report(running: Running[], slices: Record<string, Slice[]>) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `\nGET /posts/{id}, ${values.posts} articles, ${values.rounds} rounds × ${values.slices} interleaved slices of ` +
      `${SLICE_MS / 1000} s, ${CONCURRENCY} connections; GC and event-loop figures are the server's main thread\n`,
  );
  for (const r of running) console.log(`- ${r.variant.name}: ${r.variant.describe}`);
  console.log(
    '\n| server | req/s | p50 ms | p99 ms | max ms | CPU µs/req | scavenges /1k req | scavenge pause ms /1k req | ' +
      'scavenge max ms | mark-compact /1k req | mark-compact max ms | loop delay p50 / p99 / max ms | heap MB | young gen MB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of running) {
    const s = slices[r.variant.name]!;
    const merged = mergeResults(s.map((x) => x.load));
    const perK = (f: (x: Slice) => number) => (s.reduce((a, x) => a + f(x), 0) / merged.requests) * 1000;
    const gc = (x: Slice, kind: string) => x.probe.gc[kind] ?? { count: 0, totalMs: 0, p99Ms: 0, maxMs: 0 };
    const cpuUs = (s.reduce((a, x) => a + x.probe.cpuMs, 0) / merged.requests) * 1000;
    const loop = (k: 'p50' | 'p99' | 'max') => median(s.map((x) => x.probe.eventLoopDelayMs[k])).toFixed(1);
    console.log(
      `| ${r.variant.name} | ${merged.rps.toFixed(0)} | ${merged.p50.toFixed(1)} | ${merged.p99.toFixed(1)} | ` +
        `${merged.max.toFixed(0)} | ${cpuUs.toFixed(0)} | ${perK((x) => gc(x, 'scavenge').count).toFixed(1)} | ` +
        `${perK((x) => gc(x, 'scavenge').totalMs).toFixed(1)} | ${Math.max(...s.map((x) => gc(x, 'scavenge').maxMs)).toFixed(1)} | ` +
        `${perK((x) => gc(x, 'mark-compact').count).toFixed(2)} | ${Math.max(...s.map((x) => gc(x, 'mark-compact').maxMs)).toFixed(1)} | ` +
        `${loop('p50')} / ${loop('p99')} / ${loop('max')} | ` +
        `${(median(s.map((x) => x.probe.heapUsedBytes)) / 2 ** 20).toFixed(0)} | ${(median(s.map((x) => x.probe.newSpaceBytes)) / 2 ** 20).toFixed(0)} |`,
    );
  }
  if (values.waits) {
    console.log('\nPostgreSQL backends of the slices, by what they were doing (average number at a sample):\n');
    for (const r of running) {
      const s = slices[r.variant.name]!;
      const samples = s.reduce((a, x) => a + (x.samples ?? 0), 0);
      const total: Record<string, number> = {};
      for (const x of s) for (const [k, v] of Object.entries(x.waits ?? {})) total[k] = (total[k] ?? 0) + v;
      const shown = Object.entries(total)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([k, v]) => `${k} ${(v / samples).toFixed(2)}`);
      console.log(`- ${r.variant.name}: ${shown.join(', ')}`);
    }
  }
  const base = slices.bare && mergeResults(slices.bare.map((x) => x.load));
  if (base) {
    console.log('\nRatios to bare (req/s, p99):');
    for (const r of running.filter((x) => !x.variant.bare)) {
      const m = mergeResults(slices[r.variant.name]!.map((x) => x.load));
      console.log(
        `- ${r.variant.name}: req/s ${(m.rps / base.rps).toFixed(2)}×, p99 ${(m.p99 / base.p99).toFixed(2)}×`,
      );
    }
  }
}

runBench(main);
