/**
 * The "physical limit" of an authenticated article read on this schema: node:http + pg with
 * named prepared statements, doing what GET /api/v1/author/posts/{id} must do and no more —
 * token lookup by SHA-256, the fixed-window counter upsert, the article row, its JSON.
 * bench/public-page.ts divides the public page's throughput by this one's.
 *
 *   node --import tsx bench/support/bare-read-server.ts <DATABASE_URL> [PORT]   → prints {"port":…}
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });
const keepText = (v: string) => v;
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 1184 ? keepText : pg.types.getTypeParser(oid, format ?? 'text'),
};

const AUTH = {
  name: 'auth',
  text: `SELECT a.id, a.read_per_min FROM api_tokens t JOIN accounts a ON a.id = t.account_id
          WHERE t.secret_hash = $1 AND t.revoked_at IS NULL AND a.deleted_at IS NULL`,
};
const HIT = {
  name: 'hit',
  text: `INSERT INTO rate_windows (account_id, class, window_start, count)
         VALUES ($1, 'read', date_trunc('minute', now()), 1)
         ON CONFLICT (account_id, class, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
};
const POST = {
  name: 'post',
  text: `SELECT id, public_id, slug, title, subtitle, tags, cover_asset_id, cover_url, cover_width, cover_height, status,
                has_unpublished_changes, published_at, created_at, updated_at, like_count, comment_count, save_count,
                popularity, impression_count, open_count, read_count, complete_count, html
           FROM posts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
};
const iso = (t: string | null) => (t === null ? null : t.replace(' ', 'T').replace(/\+00$/, 'Z'));

const server = http.createServer(async (req, res) => {
  try {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const id = /^\/api\/v1\/author\/posts\/([0-9a-f-]{36})$/.exec(req.url ?? '')?.[1];
    if (!token || !id) return void res.writeHead(404).end();
    const digest = createHash('sha256').update(token).digest();
    const account = (await pool.query({ ...AUTH, values: [digest] })).rows[0];
    if (!account) return void res.writeHead(401).end();
    const count = (await pool.query({ ...HIT, values: [account.id] })).rows[0].count as number;
    if (count > account.read_per_min) return void res.writeHead(429).end();
    const row = (await pool.query({ ...POST, values: [id, account.id], types } as pg.QueryConfig)).rows[0];
    if (!row) return void res.writeHead(404).end();
    const body = JSON.stringify({
      ...row,
      canonical_path: `/${row.slug}-${row.public_id}`,
      published_at: row.status === 'published' ? iso(row.published_at) : null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    });
    res
      .writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': String(account.read_per_min) })
      .end(body);
  } catch {
    res.writeHead(500).end();
  }
});
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + '\n');
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
