/**
 * The "physical limit" of the two article writes on this schema: node:http + pg, no tRPC, no
 * ORM, no zod, doing what `POST /api/v1/author/posts` and `PATCH /api/v1/author/posts/{id}` must
 * do for a plain article and no more:
 * - the token's account and one unit of its write window, in one statement (the service's own
 *   `authenticateAndCharge`: it is already one round trip);
 * - the JSON body (8 MiB cap), title and markdown checked as strings;
 * - the Markdown converted by the same pipeline in the same worker pool (`ContentPool.render`),
 *   each document parsed whole: the service's reuse of an account's parsed blocks
 *   (server/content/block-parse.ts) is its own, as batched admission is for reads;
 * - POST: one transaction — the per-author advisory lock and free derived slug, tags found or
 *   created, the row inserted, its post_tags rows; PATCH: one transaction — the row locked,
 *   updated, returned;
 * - the AuthorPost JSON (`authorPostFromRow`), its ETag and the RateLimit-* headers.
 * bench/write-vs-bare.ts divides the service's figures by this one's.
 *
 *   node --import tsx bench/support/bare-write-server.ts <DATABASE_URL>   → prints {"port":…,"pid":…}
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { openStatementPool } from '../../db/statements';
import { ContentPool, contentPoolSettings, ContentRejectedError, ConversionBusyError } from '../../server/content';
import { POST_SELECT, type PostRow } from '../../server/data/posts/rows';
import { authenticateAndCharge } from '../../server/admission/token-match';
import { windowAfter } from '../../server/admission/window-charge';
import { limitFor } from '../../server/model/account';
import { postEtag } from '../../server/services/posts/post-etag';
import { authorPostFromRow } from '../../server/services/posts/post-view';
import { newPublicId } from '../../server/services/posts/public-id';
import { slugFromText } from '../../server/services/posts/slugs';
import { normalizeTagNames } from '../../server/services/posts/tags';

const url = process.argv[2]!;
const statements = openStatementPool(url);
// The pipeline alone: every document parsed whole (the service reuses an account's parsed blocks).
const content = new ContentPool({ ...contentPoolSettings(), reuseParsedBlocks: false });
const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c TimeZone=UTC' });
const keepText = (v: string) => v;
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 1184 ? keepText : pg.types.getTypeParser(oid, format ?? 'text'),
};
const MAX_BODY = 8 * 1024 * 1024;
const PREFIX = '/api/v1/author/posts';

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_BODY) throw new Refusal(400, 'body too large');
    chunks.push(chunk);
  }
  const body = JSON.parse(Buffer.concat(chunks, total).toString('utf8')) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) throw new Refusal(400, 'body: an object');
  return body;
}

async function convert(markdown: string, title: string, accountId: string): Promise<string> {
  return (await content.render({ markdown, title, rehosted: {} }, accountId)).html;
}

async function inTransaction<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await work(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

const RETURNING = `RETURNING ${POST_SELECT}`;

async function create(accountId: string, body: Record<string, unknown>): Promise<PostRow> {
  const { title, markdown } = body;
  if (typeof title !== 'string' || typeof markdown !== 'string') throw new Refusal(400, 'title, markdown: strings');
  const tags = normalizeTagNames(Array.isArray(body.tags) ? (body.tags as string[]) : []);
  const html = await convert(markdown, title, accountId);
  const base = slugFromText(title);
  return inTransaction(async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`derived-slug:${accountId}:${base}`]);
    const taken = new Set(
      (
        await c.query<{ slug: string }>(
          'SELECT slug FROM posts WHERE account_id = $1 AND deleted_at IS NULL AND (slug = $2 OR slug LIKE $3)',
          [accountId, base, `${base}-%`],
        )
      ).rows.map((r) => r.slug),
    );
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    let tagRows: { id: string; slug: string; name: string }[] = [];
    if (tags.length > 0) {
      await c.query(
        `INSERT INTO tags (id, slug, name) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]) ON CONFLICT (slug) DO NOTHING`,
        [tags.map(() => randomUUID()), tags.map((t) => t.slug), tags.map((t) => t.name)],
      );
      const found = await c.query<{ id: string; slug: string; name: string }>(
        'SELECT id, slug, name FROM tags WHERE slug = ANY($1)',
        [tags.map((t) => t.slug)],
      );
      const bySlug = new Map(found.rows.map((r) => [r.slug, r]));
      tagRows = tags.map((t) => bySlug.get(t.slug)!);
    }
    const now = new Date();
    const row = (
      await c.query({
        text: `INSERT INTO posts (id, account_id, public_id, slug, title, subtitle, markdown, html, tags, status, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'draft', $10, $10) ${RETURNING}`,
        values: [
          randomUUID(),
          accountId,
          newPublicId(),
          slug,
          title,
          typeof body.subtitle === 'string' ? body.subtitle : null,
          markdown,
          html,
          JSON.stringify(tagRows.map((t) => ({ slug: t.slug, name: t.name }))),
          now,
        ],
        types,
      } as pg.QueryConfig)
    ).rows[0] as PostRow;
    if (tagRows.length > 0)
      await c.query(
        'INSERT INTO post_tags (post_id, tag_id, position) SELECT $1, * FROM unnest($2::uuid[], $3::int[])',
        [row.id, tagRows.map((t) => t.id), tagRows.map((_, i) => i)],
      );
    return row;
  });
}

async function update(accountId: string, id: string, body: Record<string, unknown>): Promise<PostRow> {
  const { title, markdown } = body;
  if (title !== undefined && typeof title !== 'string') throw new Refusal(400, 'title: a string');
  if (markdown !== undefined && typeof markdown !== 'string') throw new Refusal(400, 'markdown: a string');
  const current = await pool.query<{ title: string }>(
    'SELECT title FROM posts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL',
    [id, accountId],
  );
  if (!current.rows[0]) throw new Refusal(404, 'not found');
  const html = markdown === undefined ? undefined : await convert(markdown, title ?? current.rows[0].title, accountId);
  return inTransaction(async (c) => {
    const locked = await c.query<{ updated_at: Date }>(
      'SELECT updated_at FROM posts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE',
      [id, accountId],
    );
    if (!locked.rows[0]) throw new Refusal(404, 'not found');
    const updatedAt = new Date(Math.max(Date.now(), locked.rows[0].updated_at.getTime() + 1));
    const row = (
      await c.query({
        text: `UPDATE posts SET title = coalesce($3, title), markdown = coalesce($4, markdown), html = coalesce($5, html),
                      has_unpublished_changes = (status <> 'draft'), updated_at = $6
                WHERE id = $1 AND account_id = $2 ${RETURNING}`,
        values: [id, accountId, title ?? null, markdown ?? null, html ?? null, updatedAt],
        types,
      } as pg.QueryConfig)
    ).rows[0] as PostRow;
    return row;
  });
}

const server = http.createServer(async (req, res) => {
  try {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const path = req.url ?? '';
    const isCreate = req.method === 'POST' && path === PREFIX;
    const id = req.method === 'PATCH' && path.startsWith(`${PREFIX}/`) ? path.slice(PREFIX.length + 1) : null;
    if (!isCreate && !id) throw new Refusal(404, 'not found');
    const access = await authenticateAndCharge(statements.runner, token, 'write');
    if (!access) throw new Refusal(401, 'unauthorized');
    const window = windowAfter(access.window, limitFor(access.auth.account, 'write'));
    if (!window.allowed) throw new Refusal(429, 'rate limited');
    const body = await readJson(req);
    const row = isCreate ? await create(access.auth.account.id, body) : await update(access.auth.account.id, id!, body);
    const post = authorPostFromRow(row);
    res.writeHead(isCreate ? 201 : 200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      etag: postEtag(post),
      'ratelimit-limit': String(window.limit),
      'ratelimit-remaining': String(window.remaining),
      'ratelimit-reset': String(window.reset),
    });
    res.end(JSON.stringify(post));
  } catch (err) {
    const status =
      err instanceof Refusal
        ? err.status
        : err instanceof ConversionBusyError
          ? 503
          : err instanceof ContentRejectedError || err instanceof SyntaxError
            ? 400
            : 500;
    if (status === 500) process.stderr.write(`${String(err)}\n`);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: err instanceof Error ? err.message : 'error' }));
  }
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(JSON.stringify({ port, pid: process.pid }) + '\n');
});
process.on('SIGTERM', () =>
  server.close(() => Promise.all([pool.end(), statements.close(), content.close()]).then(() => process.exit(0))),
);
