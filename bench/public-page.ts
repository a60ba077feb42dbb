/**
 * Public article pages against the physical limit of an authenticated read, in one
 * interleaved run on this machine:
 * - "bare GET /posts/{id}": node:http + pg with prepared statements (bench/support/bare-read-
 *   server.ts) doing token lookup, counter upsert, the row and its JSON, on the same database;
 * - "public page": GET /<slug>-<public_id> of the service, the same stored HTML in a page;
 * - "public page, If-None-Match": the conditional GET a cache or browser sends (304);
 * - "service GET /posts/{id}": the service's own authenticated read, for reference;
 * - "reader beacon": the open beacon a page view loads (GET /api/reader/{public_id}/open.gif),
 *   each request from a new reader (its own user agent), so every one enters the tally.
 * Then the database writes per 1,000 page views: the flushes the service reports
 * (`reader_flushes_total`, one write statement each) against the beacons it counted.
 * Each round gives every scenario a warm-up, then alternating slices; ratios are per round,
 * reported as min / median / max. Target: public page req/s ≥ 0.5 × the bare read's.
 *
 *   npm run build && npx tsx bench/public-page.ts [--rounds 3] [--slices 4] [--slice-seconds 3]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cli, metricsOf, ROOT } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';
import { mergeResults, runLoad, type LoadRequest, type LoadResult } from './load';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    slices: { type: 'string', default: '4' },
    'slice-seconds': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
  },
});
const ROUNDS = Number(values.rounds);
const SLICES = Number(values.slices);
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);

async function main() {
  // Readers are told apart by the address a trusted proxy forwards, as behind Varnish.
  const bench = await startBenchService('publishing-bench-public-', { TRUSTED_PROXIES: '127.0.0.1' });
  const { db, service, env } = bench;
  const high = [
    '--limit',
    'read_per_min=100000000',
    '--limit',
    'write_per_min=100000000',
    '--limit',
    'publish_per_min=100000000',
  ];
  const account = (await cli(env, ['account', 'create', 'bench', ...high])).json as { token: string };
  const auth = { authorization: `Bearer ${account.token}` };
  const bare = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/support/bare-read-server.ts'), db.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const created = await fetch(`${service.baseUrl}/api/v1/author/posts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: BENCH_TITLE, markdown: BENCH_MARKDOWN, tags: ['performance', 'postgresql'] }),
    });
    const post = (await created.json()) as { id: string; canonical_path: string };
    const published = await fetch(`${service.baseUrl}/api/v1/author/posts/${post.id}/publish`, {
      method: 'POST',
      headers: auth,
    });
    if (created.status !== 201 || published.status !== 200)
      throw new Error(`seeding failed: ${created.status} / ${published.status}`);
    const page = await fetch(`${service.baseUrl}${post.canonical_path}`);
    const etag = page.headers.get('etag')!;
    const pageBytes = (await page.arrayBuffer()).byteLength;
    const barePort = await new Promise<number>((resolve) =>
      bare.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port)),
    );
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const check = await fetch(`${bareUrl}/api/v1/author/posts/${post.id}`, { headers: auth });
    if (check.status !== 200) throw new Error(`bare server answered ${check.status}`);

    let reader = 0;
    const publicId = post.canonical_path.slice(-10);
    const beacon = (): LoadRequest => ({
      path: `/api/reader/${publicId}/open.gif`,
      // A reader of its own: its own address (as the trusted proxy forwards it) and user agent.
      headers: {
        'user-agent': `Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 bench-reader-${reader}`,
        'x-forwarded-for': `10.${(reader >> 16) & 255}.${(reader >> 8) & 255}.${reader++ & 255}`,
      },
    });
    const scenarios: { name: string; base: string; request: LoadRequest | (() => LoadRequest); expect: number }[] = [
      {
        name: 'bare GET /posts/{id}',
        base: bareUrl,
        request: { path: `/api/v1/author/posts/${post.id}`, headers: auth },
        expect: 200,
      },
      { name: 'public page', base: service.baseUrl, request: { path: post.canonical_path }, expect: 200 },
      {
        name: 'public page, If-None-Match (304)',
        base: service.baseUrl,
        request: { path: post.canonical_path, headers: { 'if-none-match': etag } },
        expect: 304,
      },
      {
        name: 'service GET /posts/{id}',
        base: service.baseUrl,
        request: { path: `/api/v1/author/posts/${post.id}`, headers: auth },
        expect: 200,
      },
      { name: 'reader beacon (open)', base: service.baseUrl, request: beacon, expect: 200 },
    ];
    const next = (s: (typeof scenarios)[number]) =>
      typeof s.request === 'function' ? s.request : () => s.request as LoadRequest;
    const before = await readerMetrics(service.baseUrl);
    const perRound: LoadResult[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? scenarios : [...scenarios].reverse();
      const parts = new Map<string, LoadResult[]>(scenarios.map((s) => [s.name, []]));
      for (const s of order) await runLoad(s.base, next(s), { concurrency: CONCURRENCY, durationMs: 1500 }); // warm-up
      for (let slice = 0; slice < SLICES; slice++) {
        for (const s of slice % 2 === 0 ? order : [...order].reverse()) {
          const r = await runLoad(s.base, next(s), { concurrency: CONCURRENCY, durationMs: SLICE_MS });
          if (Object.keys(r.statuses).some((k) => Number(k) !== s.expect))
            throw new Error(`${s.name}: unexpected statuses ${JSON.stringify(r.statuses)}`);
          parts.get(s.name)!.push(r);
        }
      }
      perRound.push(scenarios.map((s) => mergeResults(parts.get(s.name)!)));
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const fmt = (xs: number[]) =>
      `${Math.min(...xs).toFixed(2)} / **${median(xs).toFixed(2)}** / ${Math.max(...xs).toFixed(2)}`;
    console.log(
      `\n${ROUNDS} rounds × ${SLICES} interleaved slices of ${SLICE_MS / 1000} s, concurrency ${CONCURRENCY}; public page ${pageBytes} bytes\n`,
    );
    console.log(
      '| scenario | req/s (median) | p50 ms | p99 ms | req/s ÷ bare read (min / median / max) | p99 ÷ bare read (median) |',
    );
    console.log('| --- | ---: | ---: | ---: | :---: | :---: |');
    scenarios.forEach((s, i) => {
      const rps = perRound.map((r) => r[i]!.rps);
      const ratio = perRound.map((r) => r[i]!.rps / r[0]!.rps);
      const p99 = perRound.map((r) => r[i]!.p99 / r[0]!.p99);
      console.log(
        `| ${s.name} | ${median(rps).toFixed(0)} | ${median(perRound.map((r) => r[i]!.p50)).toFixed(1)} | ${median(perRound.map((r) => r[i]!.p99)).toFixed(1)} | ${fmt(ratio)} | ${median(p99).toFixed(2)} |`,
      );
    });
    console.log('\nTarget: public page req/s ≥ 0.5 × bare GET /posts/{id}; the 304 answers without rendering.');
    // The last beacons reach the database with the next flush (at most 5 s).
    await new Promise((r) => setTimeout(r, 6_000));
    const after = await readerMetrics(service.baseUrl);
    const views = after.pending - before.pending;
    const flushes = after.flushes - before.flushes;
    console.log(
      `\nReader counting: ${views} page views (open beacons of distinct readers) written by ${flushes} flushes ` +
        `(one write statement each) → ${((1000 * flushes) / Math.max(1, views)).toFixed(3)} write statements per 1,000 page views ` +
        `(plus one salt statement per instance and UTC day). Target: ≤ 1 per flush per instance, not per view.`,
    );
  } finally {
    bare.kill('SIGTERM');
    await bench.stop();
  }
}

/** Beacons entered into the tally and successful flushes, from the service's metrics. */
async function readerMetrics(base: string): Promise<{ pending: number; flushes: number }> {
  const text = await (await metricsOf(base)).text();
  const sum = (re: RegExp) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
  return {
    pending: sum(/^reader_beacons_total\{[^}]*outcome="pending"[^}]*\} (\d+)/gm),
    flushes: sum(/^reader_flushes_total\{result="ok"\} (\d+)/gm),
  };
}

runBench(main);
