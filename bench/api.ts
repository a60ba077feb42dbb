/**
 * API read benchmark: latency and throughput of authenticated reads over 100,000 articles of
 * one author, page 1 against a deep page, at concurrency 32; SQL round trips per read; and
 * GET /me p99 while 1 MB articles are written alongside (conversion must not starve cheap requests).
 *
 *   npm run build && npx tsx bench/api.ts [--articles 100000] [--seconds 10]
 *
 * Starts its own embedded PostgreSQL and service instance on loopback; seeds rows with SQL
 * (the API would need hours at 30 writes a minute); everything measured goes through HTTP.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cli } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';
import { formatRow, HEADER, runLoad } from './load';

const { values } = parseArgs({
  options: { articles: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '10' } },
});
const ARTICLES = Number(values.articles);
const SECONDS = Number(values.seconds);
const CONCURRENCY = 32;

async function main() {
  const bench = await startBenchService('publishing-bench-');
  const { db, service, env } = bench;
  const big = '--limit';
  const account = (
    await cli(env, [
      'account',
      'create',
      'bench',
      big,
      'read_per_min=100000000',
      big,
      'write_per_min=100000000',
      big,
      'publish_per_min=100000000',
    ])
  ).json as {
    id: string;
    token: string;
  };
  const auth = { authorization: `Bearer ${account.token}` };
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();

  try {
    console.log(`seeding ${ARTICLES} articles…`);
    const t0 = Date.now();
    await client.query(
      `INSERT INTO posts (id, account_id, public_id, slug, title, markdown, html, tags, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, substr(md5(g::text || 'p'), 1, 10), 'article-' || g, 'Article ' || g,
              'Body of article ' || g, '<h1>Article ' || g || '</h1><p>Body of article ' || g || '</p>', '[]'::jsonb,
              CASE WHEN g % 3 = 0 THEN 'published' ELSE 'draft' END,
              now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
         FROM generate_series(1, $2) AS g`,
      [account.id, ARTICLES],
    );
    await client.query('ANALYZE posts');
    console.log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const sample = await client.query<{ id: string }>(
      `SELECT id FROM posts WHERE account_id = $1 ORDER BY random() LIMIT 500`,
      [account.id],
    );
    const ids = sample.rows.map((r) => r.id);

    // A deep cursor, walked through the API as a client would (50 per page).
    let cursor: string | null = null;
    const deepTarget = Math.floor((ARTICLES * 0.95) / 50);
    const walk0 = Date.now();
    for (let page = 0; page < deepTarget; page++) {
      const res: Response = await fetch(
        `${service.baseUrl}/api/v1/author/posts?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: auth },
      );
      cursor = ((await res.json()) as { next_cursor: string | null }).next_cursor;
    }
    console.log(
      `walked ${deepTarget} pages of 50 to the deep cursor in ${((Date.now() - walk0) / 1000).toFixed(1)} s (page ${(deepTarget * 50) / 20} of 20)`,
    );
    const deepCursor = encodeURIComponent(cursor!);

    const rows: string[] = [HEADER];
    const scenario = async (name: string, path: (i: number) => string) => {
      await runLoad(service.baseUrl, (i) => ({ path: path(i), headers: auth }), {
        concurrency: CONCURRENCY,
        durationMs: 2000,
      }); // warm-up
      const r = await runLoad(service.baseUrl, (i) => ({ path: path(i), headers: auth }), {
        concurrency: CONCURRENCY,
        durationMs: SECONDS * 1000,
      });
      rows.push(formatRow(name, r));
      return r;
    };
    await scenario('GET /posts/{id}', (i) => `/api/v1/author/posts/${ids[i % ids.length]}`);
    const first = await scenario('GET /posts (page 1)', () => '/api/v1/author/posts');
    const deep = await scenario(
      `GET /posts (deep, ~${Math.round(ARTICLES * 0.95).toLocaleString()} in)`,
      () => `/api/v1/author/posts?cursor=${deepCursor}`,
    );
    await scenario('GET /me', () => '/api/v1/author/me');

    // SQL round trips per authenticated read: committed transactions of the database over N reads.
    const roundTrips = async (path: string, n: number) => {
      const count = async () => {
        await new Promise((r) => setTimeout(r, 11_000)); // idle backends flush their statistics after 10 s (PGSTAT_IDLE_INTERVAL)
        const r = await client.query<{ n: string }>(
          `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`,
        );
        return Number(r.rows[0]!.n);
      };
      const before = await count();
      for (let i = 0; i < n; i++)
        await fetch(`${service.baseUrl}${path}`, { headers: auth }).then((r) => r.arrayBuffer());
      const after = await count();
      return (after - before - 1) / n; // minus the counting query itself
    };
    const rtById = await roundTrips(`/api/v1/author/posts/${ids[0]}`, 200);
    const rtList = await roundTrips(`/api/v1/author/posts?cursor=${deepCursor}`, 200);

    // GET /me while 1 MB articles are written alongside (conversion runs in worker threads).
    const paragraph =
      'Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, **sed do** eiusmod tempor. '.repeat(12) + '\n\n';
    const megabyte = JSON.stringify({
      title: 'Big',
      markdown: paragraph.repeat(Math.ceil(1_000_000 / paragraph.length)),
    });
    const writers = runLoad(
      service.baseUrl,
      () => ({
        method: 'POST',
        path: '/api/v1/author/posts',
        headers: { ...auth, 'content-type': 'application/json' },
        body: megabyte,
      }),
      { concurrency: 2, durationMs: SECONDS * 1000 + 1000 },
    );
    const meLoaded = await runLoad(service.baseUrl, () => ({ path: '/api/v1/author/me', headers: auth }), {
      concurrency: 8,
      durationMs: SECONDS * 1000,
    });
    const meQuiet = await runLoad(service.baseUrl, () => ({ path: '/api/v1/author/me', headers: auth }), {
      concurrency: 8,
      durationMs: SECONDS * 1000,
    });
    const writes = await writers;
    rows.push(formatRow('GET /me c=8 (no writes)', meQuiet));
    rows.push(formatRow('GET /me c=8 (1 MB writes alongside)', meLoaded));
    rows.push(formatRow('POST /posts 1 MB c=2 (alongside)', writes));

    console.log(`\n${ARTICLES.toLocaleString()} articles, concurrency ${CONCURRENCY}, ${SECONDS} s per scenario\n`);
    console.log(rows.join('\n'));
    console.log(`\ndeep page p50 / page 1 p50 = ${(deep.p50 / first.p50).toFixed(2)} (target ≤ 1.2)`);
    console.log(
      `SQL round trips per GET /posts/{id}: ${rtById.toFixed(2)}; per GET /posts (deep): ${rtList.toFixed(2)} (target ≤ 3)`,
    );
    console.log(`GET /me p99 with 1 MB writes / without: ${(meLoaded.p99 / meQuiet.p99).toFixed(2)} (target ≤ 2)`);
  } finally {
    await client.end();
    await bench.stop();
  }
}

runBench(main);
