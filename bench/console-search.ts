/**
 * Console article list bench, run with `npx tsx --conditions=react-server bench/console-search.ts`
 * (the condition lets the console's server-only modules load outside Next): the list query of
 * server/console/article-search.ts over 100,000 articles of one author, each search and sort the
 * console offers, with the indexes of Migration20261126100100_article_search and again after
 * dropping them, interleaved per query. Seeded in SQL (generate_series) on an embedded
 * PostgreSQL of its own. Reported: p50 of RUNS calls per query, in ms.
 */
import pg from 'pg';
import { provideDatabase } from '../db/provide-database';
import { openStatementPool, type StatementRunner } from '../db/statements';
import { listArticles, type ArticleQuery } from '../server/console/article-search';
import { removeDataDir, tempDataDir } from '../tests/support/service';
import { runBench } from './support/bench-service';

const ARTICLES = 100_000;
const RUNS = 15;
const NEW_INDEXES = ['posts_author_updated', 'posts_author_published', 'posts_author_popularity', 'posts_search'];

/** Titles from a small vocabulary, so a word matches thousands of articles and a rare one a few. */
const SEED = `
WITH words(w) AS (SELECT unnest(ARRAY['harbour','tides','boats','gulls','nets','wind','dawn','coast','storm',
  'lighthouse','anchor','sail','reef','pier','fishing','ferry','cliff','sand','shell','wave']))
INSERT INTO posts (id, account_id, public_id, slug, title, markdown, html, tags, status, has_unpublished_changes,
                   published_at, popularity, created_at, updated_at)
SELECT gen_random_uuid(), $1::uuid, 'b' || lpad(g::text, 9, '0'),
       'article-' || g, t.title, 'Body of article ' || g || '.', '<p>Body of article ' || g || '.</p>',
       jsonb_build_array(jsonb_build_object('slug', t.tag, 'name', initcap(t.tag))),
       CASE WHEN g % 3 = 0 THEN 'draft' ELSE 'published' END, false,
       CASE WHEN g % 3 = 0 THEN NULL ELSE now() - (g % 50000) * interval '1 minute' END,
       ((g::bigint * 7919) % 100000)::int,
       now() - g * interval '1 minute', now() - ((g::bigint * 104729) % 100000) * interval '1 second'
  FROM generate_series(1, $2::int) g,
       LATERAL (SELECT initcap((SELECT w FROM words OFFSET g % 20 LIMIT 1)) || ' and '
                       || (SELECT w FROM words OFFSET (g / 20) % 20 LIMIT 1) || ' ' || g AS title,
                       (SELECT w FROM words OFFSET (g / 400) % 20 LIMIT 1) AS tag) t`;

const QUERIES: { name: string; query: ArticleQuery }[] = [
  { name: 'list, newest first', query: { sort: 'created' } },
  { name: 'list, last saved', query: { sort: 'updated' } },
  { name: 'list, last published', query: { sort: 'published' } },
  { name: 'list, most popular', query: { sort: 'popularity' } },
  { name: 'published only, most popular', query: { sort: 'popularity', status: 'published' } },
  { name: 'search "harb" (prefix of a common word), newest', query: { q: 'harb', sort: 'created' } },
  { name: 'search "harbour tides" (two words), last saved', query: { q: 'harbour tides', sort: 'updated' } },
  { name: 'search a slug "article-4242"', query: { q: 'article-4242', sort: 'created' } },
  { name: 'search a tag "lighthouse", most popular', query: { q: 'lighthouse', sort: 'popularity' } },
  { name: 'search with no match', query: { q: 'zebra', sort: 'created' } },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function p50(db: StatementRunner, account: string, query: ArticleQuery): Promise<{ ms: number; n: number }> {
  const times: number[] = [];
  let n = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const page = await listArticles(db, account, query);
    times.push(performance.now() - started);
    // The second page too, through its cursor, for the sorts' keyset condition.
    if (page.next && run === 0) await listArticles(db, account, { ...query, cursor: page.next });
    n = page.items.length;
  }
  return { ms: median(times), n };
}

runBench(async () => {
  const dir = tempDataDir('console-search-bench-');
  const db = await provideDatabase({ dataDir: dir }, () => {});
  const statements = openStatementPool(db.url);
  const conn = new pg.Client({ connectionString: db.url });
  try {
    await conn.connect();
    const {
      rows: [account],
    } = await conn.query<{ id: string }>(
      `INSERT INTO accounts (id, handle, created_at) VALUES (gen_random_uuid(), 'bench', now()) RETURNING id`,
    );
    const started = Date.now();
    await conn.query(SEED, [account!.id, ARTICLES]);
    await conn.query('VACUUM ANALYZE posts');
    console.log(`Seeded ${ARTICLES.toLocaleString('en')} articles of one author in ${Date.now() - started} ms`);

    const withIndexes: Record<string, { ms: number; n: number }> = {};
    for (const q of QUERIES) withIndexes[q.name] = await p50(statements.runner, account!.id, q.query);
    for (const name of NEW_INDEXES) await conn.query(`DROP INDEX ${name}`);
    await conn.query('ANALYZE posts');
    console.log('| query (20 per page) | rows on page | p50 with the indexes (ms) | p50 without them (ms) |');
    console.log('| --- | --- | --- | --- |');
    for (const q of QUERIES) {
      const without = await p50(statements.runner, account!.id, q.query);
      const w = withIndexes[q.name]!;
      console.log(`| ${q.name} | ${w.n} | ${w.ms.toFixed(2)} | ${without.ms.toFixed(2)} |`);
    }
  } finally {
    await conn.end();
    await statements.close();
    await db.stop();
    removeDataDir(dir);
  }
});
