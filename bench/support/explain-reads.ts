/**
 * The plans PostgreSQL runs for the four admitted reads of the read benchmarks, with what each
 * node touched: `EXPLAIN (ANALYZE, BUFFERS)` of the service's own statements (server/data),
 * prepared and executed as its statement runner does, so after the first executions the plan
 * cache may switch to the generic plan just as it does under load. Used by bench/read-scale.ts
 * `--explain` to say where a read's time goes as the table grows, instead of guessing.
 */
import pg from 'pg';
import { admittedQuery, type AdmittedRead } from '../../server/admission/admitted-statement';
import { admittedMediaBytesToday } from '../../server/data/usage-counters';
import { admittedPostPage, admittedPostRow } from '../../server/data/posts/reads';

/** Executions before the explained one: PostgreSQL decides custom or generic after the fifth. */
const WARM_EXECUTIONS = 8;

function literal(client: pg.Client, value: unknown, type?: string): string {
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'::bytea`;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `ARRAY[${value.map((v) => literal(client, v)).join(', ')}]::${type}[]`;
  return client.escapeLiteral(String(value));
}

/**
 * Each read's plan on the database at `url`, for the account whose token digest is in
 * api_tokens (its only token) and the page half-way through its `articles`, as text.
 */
export async function explainAdmittedReads(url: string, accountId: string, postId: string, articles: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const [token] = (
      await client.query<{ secret_hash: Buffer }>(
        'SELECT secret_hash FROM api_tokens WHERE account_id = $1 AND revoked_at IS NULL',
        [accountId],
      )
    ).rows;
    const [deep] = (
      await client.query<{ created_at: string; id: string }>(
        `SELECT created_at::text, id FROM posts WHERE account_id = $1 AND deleted_at IS NULL
          ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [accountId, Math.floor(articles / 2)],
      )
    ).rows;
    const reads: [string, AdmittedRead<unknown>][] = [
      ['GET /me', admittedMediaBytesToday()],
      ['GET /posts/{id}', admittedPostRow(postId)],
      ['GET /posts (page 1)', admittedPostPage({ count: 21 })],
      ['GET /posts (deep page)', admittedPostPage({ after: { createdAt: deep!.created_at, id: deep!.id }, count: 21 })],
    ];
    const out: string[] = [];
    for (const [name, read] of reads) {
      const { statement: st, values: params } = admittedQuery(read.statement, [
        { digest: token!.secret_hash, values: read.values },
      ]);
      const types = [undefined, undefined, ...read.statement.params.map((p) => p.type)];
      const args = params.map((v, i) => literal(client, v, types[i])).join(', ');
      await client.query(`PREPARE explained AS ${st.text}`);
      for (let i = 0; i < WARM_EXECUTIONS; i++) await client.query(`EXECUTE explained(${args})`);
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) EXECUTE explained(${args})`,
      );
      await client.query('DEALLOCATE explained');
      out.push(`-- ${name}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    return out.join('\n\n');
  } finally {
    await client.end();
  }
}
