/**
 * Reads as the table grows: the four reads of one author with 100,000 articles, on a database
 * that holds only them against one that holds 1,000,000 articles across 1,000 authors (the
 * same author and articles plus 999 others), in one interleaved run. Target: each read's p50 at
 * 1M ≤ 1.1 × its p50 at 100k. Also prints the database size per article.
 *
 *   npm run build && npx tsx bench/read-scale.ts [--posts 100000] [--total 1000000] [--authors 1000]
 *     [--rounds 3] [--slices 4] [--slice-seconds 3] [--concurrency 32] [--explain]
 *
 * `--explain` first prints, for each read on each database, the plan PostgreSQL runs for the
 * service's statement with what every node touched (bench/support/explain-reads.ts).
 *
 * Two service instances, each on its own embedded PostgreSQL. On each, one article goes through
 * `POST /posts` (the service's own HTML), then SQL clones it, as the read harness does: the
 * author's articles one second apart, then (on the large one) the other authors' articles.
 * The deep cursor is walked through the API (`limit=50` up to half of the author's articles).
 */
import { parseArgs } from 'node:util';
import { runBench, startBenchService, type BenchService } from './support/bench-service';
import { BENCH_MARKDOWN } from './support/article';
import { seedArticles, type SeededAuthor } from './support/seed-articles';
import { explainAdmittedReads } from './support/explain-reads';
import { mergeResults, runLoad, type LoadResult } from './load';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: '100000' },
    total: { type: 'string', default: '1000000' },
    authors: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    slices: { type: 'string', default: '4' },
    'slice-seconds': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    explain: { type: 'boolean', default: false },
  },
});
const POSTS = Number(values.posts);
const TOTAL = Number(values.total);
const AUTHORS = Number(values.authors);
const ROUNDS = Number(values.rounds);
const SLICES = Number(values.slices);
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);

interface Instance extends SeededAuthor {
  name: string;
  bench: BenchService;
}

async function start(name: string, total: number): Promise<Instance> {
  const bench = await startBenchService(`publishing-bench-scale-${name}-`);
  return { name, bench, ...(await seedArticles(bench, { name, posts: POSTS, total, authors: AUTHORS })) };
}

const ROUTES: { name: string; path: (s: Instance) => string }[] = [
  { name: 'GET /me', path: () => '/api/v1/author/me' },
  { name: 'GET /posts/{id}', path: (s) => `/api/v1/author/posts/${s.postId}` },
  { name: 'GET /posts (page 1)', path: () => '/api/v1/author/posts?limit=20' },
  { name: 'GET /posts (deep page)', path: (s) => `/api/v1/author/posts?limit=20&cursor=${s.deepCursor}` },
];

async function main() {
  const small = await start('small', POSTS);
  let large: Instance | undefined;
  try {
    large = await start('large', TOTAL);
    const sides = [small, large];
    if (values.explain) {
      for (const s of sides) {
        const plans = await explainAdmittedReads(s.bench.db.url, s.accountId, s.postId, POSTS);
        console.log(`\n## Plans on the ${s.articles.toLocaleString()}-article database\n\n${plans}`);
      }
    }
    const results: Record<string, { small: LoadResult; large: LoadResult }[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of ROUTES) {
        const load = (s: Instance, durationMs: number) =>
          runLoad(s.bench.service.baseUrl, () => ({ path: route.path(s), headers: s.auth }), {
            concurrency: CONCURRENCY,
            durationMs,
          });
        for (const s of sides) await load(s, 2000); // warm-up
        const parts: Record<string, LoadResult[]> = { small: [], large: [] };
        for (let slice = 0; slice < SLICES; slice++) {
          for (const s of (slice + round) % 2 === 0 ? sides : [...sides].reverse()) {
            const r = await load(s, SLICE_MS);
            if (Object.keys(r.statuses).some((k) => k !== '200'))
              throw new Error(`${s.name} ${route.name}: ${JSON.stringify(r.statuses)}`);
            parts[s.name]!.push(r);
          }
        }
        (results[route.name] ??= []).push({ small: mergeResults(parts.small!), large: mergeResults(parts.large!) });
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `\n${small.articles.toLocaleString()} articles (one author) vs ${large.articles.toLocaleString()} (${AUTHORS} authors, ` +
        `the same author's ${POSTS.toLocaleString()} among them); ${ROUNDS} rounds × ${SLICES} interleaved slices of ` +
        `${SLICE_MS / 1000} s, concurrency ${CONCURRENCY}\n`,
    );
    const [a, b] = [small, large].map((s) => (s.articles >= 1e6 ? `${s.articles / 1e6}M` : `${s.articles / 1e3}k`));
    console.log(
      `| read | p50 ms ${a} / ${b} | p50 ratio ${b} ÷ ${a} (min / median / max) | p99 ms ${a} / ${b} | req/s ${a} / ${b} |`,
    );
    console.log('| --- | ---: | :---: | ---: | ---: |');
    for (const route of ROUTES) {
      const rs = results[route.name]!;
      const ratios = rs.map((r) => r.large.p50 / r.small.p50);
      const m = (f: (r: { small: LoadResult; large: LoadResult }) => number) => median(rs.map(f));
      console.log(
        `| ${route.name} | ${m((r) => r.small.p50).toFixed(1)} / ${m((r) => r.large.p50).toFixed(1)} | ` +
          `${Math.min(...ratios).toFixed(2)} / **${median(ratios).toFixed(2)}** / ${Math.max(...ratios).toFixed(2)} | ` +
          `${m((r) => r.small.p99).toFixed(1)} / ${m((r) => r.large.p99).toFixed(1)} | ` +
          `${m((r) => r.small.rps).toFixed(0)} / ${m((r) => r.large.rps).toFixed(0)} |`,
      );
    }
    console.log(
      `\nDatabase size per article: ${(small.bytesPerArticle / 1024).toFixed(2)} KiB at ${small.articles.toLocaleString()}, ` +
        `${(large.bytesPerArticle / 1024).toFixed(2)} KiB at ${large.articles.toLocaleString()} ` +
        `(pg_database_size ÷ articles; the benchmark article: ${BENCH_MARKDOWN.length} characters of Markdown).`,
    );
    console.log(`Target: p50 at ${b} ≤ 1.1 × p50 at ${a} for every read.`);
  } finally {
    await large?.bench.stop();
    await small.bench.stop();
  }
}

runBench(main);
