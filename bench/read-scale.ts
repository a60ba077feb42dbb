/**
 * Reads as the table grows: the four reads of one author with 100,000 articles, on a database
 * that holds only them against one that holds 1,000,000 articles across 1,000 authors (the
 * same author and articles plus 999 others), in one interleaved run. Target: each read's p50 at
 * 1M ≤ 1.1 × its p50 at 100k. Also prints the database size per article.
 *
 *   npm run build && npx tsx bench/read-scale.ts [--posts 100000] [--total 1000000] [--authors 1000]
 *     [--rounds 3] [--slices 4] [--slice-seconds 3] [--concurrency 32]
 *
 * Two service instances, each on its own embedded PostgreSQL. On each, one article goes through
 * `POST /posts` (the service's own HTML), then SQL clones it, as the read harness does: the
 * author's articles one second apart, then (on the large one) the other authors' articles.
 * The deep cursor is walked through the API (`limit=50` up to half of the author's articles).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cli } from '../tests/support/service';
import { runBench, startBenchService, type BenchService } from './support/bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';
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
  },
});
const POSTS = Number(values.posts);
const TOTAL = Number(values.total);
const AUTHORS = Number(values.authors);
const ROUNDS = Number(values.rounds);
const SLICES = Number(values.slices);
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);

interface Instance {
  name: string;
  bench: BenchService;
  auth: Record<string, string>;
  postId: string;
  deepCursor: string;
  bytesPerArticle: number;
  articles: number;
}

/** Copies of article `id`: `count` of them for `account` (a UUID expression), from `offset` seconds back. */
function cloneSql(columns: string[], account: string, offset: string): string {
  const set: Record<string, string> = {
    id: 'gen_random_uuid()',
    account_id: account,
    public_id: `substr(md5(${account}::text || '-' || g::text), 1, 10)`,
    slug: `'copy-' || g`,
    title: `'Copy ' || g`,
    created_at: `p.created_at - ((${offset} + g) || ' seconds')::interval`,
    updated_at: `p.created_at - ((${offset} + g) || ' seconds')::interval`,
  };
  return `INSERT INTO posts (${columns.join(', ')}) SELECT ${columns.map((c) => set[c] ?? `p.${c}`).join(', ')}`;
}

async function start(name: string, total: number): Promise<Instance> {
  const bench = await startBenchService(`publishing-bench-scale-${name}-`);
  const high = ['read_per_min', 'write_per_min'].flatMap((n) => ['--limit', `${n}=100000000`]);
  const account = (await cli(bench.env, ['account', 'create', 'bench', ...high])).json as { id: string; token: string };
  const auth = { authorization: `Bearer ${account.token}` };
  const created = await fetch(`${bench.service.baseUrl}/api/v1/author/posts`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title: BENCH_TITLE, markdown: BENCH_MARKDOWN, tags: ['performance', 'postgresql'] }),
  });
  if (created.status !== 201) throw new Error(`${name}: seeding POST answered ${created.status}`);
  const first = (await created.json()) as { id: string };
  const client = new pg.Client({ connectionString: bench.db.url });
  await client.connect();
  try {
    const t0 = Date.now();
    const columns = (
      await client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'posts' ORDER BY ordinal_position`,
      )
    ).rows.map((r) => r.column_name);
    await client.query(
      `${cloneSql(columns, '$2::uuid', '0')} FROM posts p, generate_series(1, $3::int) g WHERE p.id = $1`,
      [first.id, account.id, POSTS - 1],
    );
    const others = AUTHORS - 1;
    const rest = total - POSTS;
    if (rest > 0 && others > 0) {
      await client.query(
        `INSERT INTO accounts (id, handle) SELECT gen_random_uuid(), 'other-' || a FROM generate_series(1, $1::int) a`,
        [others],
      );
      const ids = (
        await client.query<{ id: string }>(`SELECT id FROM accounts WHERE handle LIKE 'other-%' ORDER BY handle`)
      ).rows.map((r) => r.id);
      for (let i = 0; i < ids.length; i++) {
        const count = Math.floor(rest / others) + (i < rest % others ? 1 : 0);
        await client.query(
          `${cloneSql(columns, '$2::uuid', '0')} FROM posts p, generate_series(1, $3::int) g WHERE p.id = $1`,
          [first.id, ids[i], count],
        );
        if (i % 100 === 99) process.stderr.write(`${name}: ${i + 1}/${ids.length} other authors seeded\n`);
      }
    }
    // Every copy carries the first article's tags, as its `tags` column says.
    await client.query(
      `INSERT INTO post_tags (post_id, tag_id, position)
       SELECT q.id, t.tag_id, t.position FROM post_tags t, posts q WHERE t.post_id = $1 AND q.id <> $1`,
      [first.id],
    );
    await client.query('VACUUM ANALYZE');
    const size = (
      await client.query<{ n: string; bytes: string }>(
        `SELECT (SELECT count(*) FROM posts) AS n, pg_database_size(current_database()) AS bytes`,
      )
    ).rows[0]!;
    process.stderr.write(`${name}: ${size.n} articles seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    // The deep cursor, walked as a client would, 50 per page, to half of the author's articles.
    let cursor: string | null = null;
    for (let page = 0; page < POSTS / 2 / 50; page++) {
      const res: Response = await fetch(
        `${bench.service.baseUrl}/api/v1/author/posts?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: auth },
      );
      cursor = ((await res.json()) as { next_cursor: string | null }).next_cursor;
    }
    return {
      name,
      bench,
      auth,
      postId: first.id,
      deepCursor: encodeURIComponent(cursor!),
      articles: Number(size.n),
      bytesPerArticle: Number(size.bytes) / Number(size.n),
    };
  } finally {
    await client.end();
  }
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
