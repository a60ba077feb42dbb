/**
 * The read benchmarks' data: one account with high limits, one article through `POST /posts`
 * (so it carries the service's own HTML), cloned in SQL as the external read harness does: the
 * author's articles one second apart, then, when `total` exceeds `posts`, `authors - 1` other
 * authors' articles. Also walks the deep cursor through the API (`limit=50` to half of the
 * author's articles) and measures the database size per article.
 */
import pg from 'pg';
import { cli } from '../../tests/support/service';
import type { BenchService } from './bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './article';

export interface SeededAuthor {
  accountId: string;
  token: string;
  auth: Record<string, string>;
  postId: string;
  /** URL-encoded cursor of the page half-way through the author's articles. */
  deepCursor: string;
  articles: number;
  bytesPerArticle: number;
}

/** Copies of article `id`: `count` of them for `account` (a UUID expression), from `offset` seconds back. */
function cloneSql(columns: string[], account: string, offset: string): string {
  const set: Record<string, string> = {
    id: 'gen_random_uuid()',
    account_id: account,
    // From a sequence: ten hex digits of an md5 collide by chance at a few million articles.
    public_id: `lpad(to_hex(nextval('bench_public_ids')), 10, '0')`,
    slug: `'copy-' || g`,
    title: `'Copy ' || g`,
    created_at: `p.created_at - ((${offset} + g) || ' seconds')::interval`,
    updated_at: `p.created_at - ((${offset} + g) || ' seconds')::interval`,
  };
  return `INSERT INTO posts (${columns.join(', ')}) SELECT ${columns.map((c) => set[c] ?? `p.${c}`).join(', ')}`;
}

export async function seedArticles(
  bench: BenchService,
  opts: { name: string; posts: number; total?: number; authors?: number },
): Promise<SeededAuthor> {
  const { name, posts } = opts;
  const total = opts.total ?? posts;
  const authors = opts.authors ?? 1;
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
    await client.query('CREATE SEQUENCE bench_public_ids');
    const columns = (
      await client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'posts' ORDER BY ordinal_position`,
      )
    ).rows.map((r) => r.column_name);
    await client.query(
      `${cloneSql(columns, '$2::uuid', '0')} FROM posts p, generate_series(1, $3::int) g WHERE p.id = $1`,
      [first.id, account.id, posts - 1],
    );
    const others = authors - 1;
    const rest = total - posts;
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
    await client.query('DROP SEQUENCE bench_public_ids');
    await client.query('VACUUM ANALYZE');
    const size = (
      await client.query<{ n: string; bytes: string }>(
        `SELECT (SELECT count(*) FROM posts) AS n, pg_database_size(current_database()) AS bytes`,
      )
    ).rows[0]!;
    process.stderr.write(`${name}: ${size.n} articles seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    let cursor: string | null = null;
    for (let page = 0; page < posts / 2 / 50; page++) {
      const res: Response = await fetch(
        `${bench.service.baseUrl}/api/v1/author/posts?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: auth },
      );
      cursor = ((await res.json()) as { next_cursor: string | null }).next_cursor;
    }
    return {
      accountId: account.id,
      token: account.token,
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
