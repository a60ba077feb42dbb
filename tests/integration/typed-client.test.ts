import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type * as Client from '../../clients/typescript/src/index';
import { createPreviewAndPublish } from '../../docs/typed-client-example';
import { api, baseUrl, newAccount } from '../support/api';
import { checkResponse, DOCUMENT_PATH } from '../support/conformance';
import { ROOT } from '../support/service';
import { animated, solidPng, startFileServer, UUID_RE, type FileServer } from './media-helpers';

/**
 * The typed client package (clients/typescript) and the README's example
 * (docs/typed-client-example.ts) cannot rot: the package's types are what openapi-typescript
 * makes of the served document today, `npm pack` builds the package with its strict tsconfig,
 * and an integration's whole day runs through the built package against the service, every
 * response checked against the document.
 */
const run = promisify(execFile);
const PACKAGE = path.join(ROOT, 'clients', 'typescript');
const SCHEMA = path.join(PACKAGE, 'src', 'schema.ts');
const EXAMPLE = path.join(ROOT, 'docs', 'typed-client-example.ts');

/** The headers of the last response, to hold the client's parsed ones against. */
let lastHeaders = new Headers();

/** Every response the client receives is checked against the document, like api()'s. */
async function conformingFetch(request: Request) {
  const response = await fetch(request);
  lastHeaders = response.headers;
  const url = new URL(request.url);
  await checkResponse({
    method: request.method,
    path: url.pathname + url.search,
    status: response.status,
    headers: response.headers,
    text: await response.clone().text(),
  });
  return response;
}

/** The package packed from a copy beside the repository's node_modules: the work tree is left alone. */
async function packCopy() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'author-client-'));
  for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'src'])
    cpSync(path.join(PACKAGE, entry), path.join(dir, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  // `prepack` runs the package's `build` (tsc with its strict tsconfig); a type error fails the pack.
  const { stdout } = await run('npm', ['pack', '--json'], { cwd: dir });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const built = (await import(pathToFileURL(path.join(dir, 'dist', 'index.js')).href)) as typeof Client;
  return { dir, packed: packed!, built };
}

let pack: Awaited<ReturnType<typeof packCopy>>;
let files: FileServer;
let png: Buffer;

beforeAll(async () => {
  png = await solidPng(24, 16, 30, 120, 200);
  files = await startFileServer({
    '/cover.png': { type: 'image/png', body: await solidPng(120, 80, 0, 0, 200) },
    '/anim.webp': { type: 'image/webp', body: await animated('webp') },
  });
  pack = await packCopy();
});
afterAll(() => files?.close());

type ReadHeaders = Client.ErrorHeaders & { etag?: string };

/** Headers as the client typed them (integers and strings) are the ones the service sent. */
function expectWellFormed(headers: ReadHeaders) {
  const sent = (name: string) => lastHeaders.get(name) ?? undefined;
  const integer = (name: string) => (sent(name) === undefined ? undefined : Number(sent(name)));
  expect(headers).toEqual({
    requestId: sent('x-request-id'),
    etag: sent('etag'),
    rateLimit: sent('ratelimit-limit') && {
      limit: integer('ratelimit-limit'),
      remaining: integer('ratelimit-remaining'),
      reset: integer('ratelimit-reset'),
    },
    retryAfter: integer('retry-after'),
  });
  expect(headers.requestId).toMatch(/^\S+$/);
  if (headers.etag !== undefined) expect(headers.etag).toMatch(/^"[^"]+"$/);
  if (headers.rateLimit) {
    const { limit, remaining, reset } = headers.rateLimit;
    for (const n of [limit, remaining, reset]) expect(Number.isInteger(n)).toBe(true);
    expect(remaining).toBeLessThanOrEqual(limit);
    // A minute window ends on a whole minute, the daily media quota at midnight UTC.
    expect(reset % 60).toBe(0);
  }
  if (headers.retryAfter !== undefined) expect(Number.isInteger(headers.retryAfter)).toBe(true);
}

/** Narrows a result to the kind the step expects, or fails with what came instead. */
function expectKind<R extends { kind: string; headers: ReadHeaders }, K extends R['kind']>(
  result: R,
  kind: K,
): Extract<R, { kind: K }> {
  expect(result.kind, JSON.stringify(result)).toBe(kind);
  expectWellFormed(result.headers);
  return result as Extract<R, { kind: K }>;
}

/** An error result with the status and code the contract gives it. */
function expectApiError(result: { kind: string }, status: number, code: Client.ErrorCode | undefined): Client.Failure {
  const failure = expectKind(result as Client.Failure, 'error');
  expect(failure.error).toBeInstanceOf(pack.built.ApiError);
  expect(failure.error).toMatchObject({ status, code, requestId: failure.headers.requestId });
  expect(failure.status).toBe(status);
  return failure;
}

describe('typed client package (clients/typescript)', () => {
  it('src/schema.ts is what openapi-typescript generates from the served document', async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-types-')), 'schema.ts');
    // The same command as the package's `generate` script, written elsewhere so the tree is left alone.
    const cli = path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await run(process.execPath, [cli, `${baseUrl()}${DOCUMENT_PATH}`, '-o', out], { cwd: PACKAGE });
    const fresh = readFileSync(out, 'utf8');
    // UPDATE_OPENAPI_TYPES=1 rewrites the committed copy after a deliberate contract change.
    if (process.env.UPDATE_OPENAPI_TYPES === '1') writeFileSync(SCHEMA, fresh);
    expect(
      readFileSync(SCHEMA, 'utf8') === fresh,
      'clients/typescript/src/schema.ts is stale: rerun this test with UPDATE_OPENAPI_TYPES=1 and commit the result',
    ).toBe(true);
  });

  it('npm pack builds it with tsc (strict) and ships the build only', async () => {
    const tsconfig = ts.readConfigFile(path.join(PACKAGE, 'tsconfig.json'), ts.sys.readFile);
    expect(tsconfig.config.compilerOptions.strict).toBe(true);
    expect(pack.packed.files.map((f) => f.path).sort()).toEqual([
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/schema.d.ts',
      'dist/schema.js',
      'package.json',
    ]);
    expect(readFileSync(path.join(pack.dir, pack.packed.filename)).length).toBeGreaterThan(0);
  });

  it('request types refuse what the service refuses (checked by tsc in npm run lint)', () => {
    expectTypeOf<{ title: string }>().toExtend<Client.UpdatePostBody>();
    expectTypeOf<{ cover_url: null }>().toExtend<Client.UpdatePostBody>();
    expectTypeOf({}).not.toExtend<Client.UpdatePostBody>();
    expectTypeOf<{ cover_asset_id: null; cover_url: string }>().not.toExtend<Client.UpdatePostBody>();
    expectTypeOf<{
      title: string;
      markdown: string;
      cover_asset_id: string;
      cover_url: string;
    }>().not.toExtend<Client.CreatePostBody>();
    expectTypeOf<{ title: string; markdown: string; cover_url: string }>().toExtend<Client.CreatePostBody>();
    expectTypeOf<Client.ErrorCode>().toEqualTypeOf<
      'unauthorized' | 'not_found' | 'precondition_failed' | 'animated_image' | 'rate_limited' | 'service_unavailable'
    >();
  });

  it("runs an integration's whole day through the built package against the service", async () => {
    const account = await newAccount({ limits: { publish_per_min: 1 } });
    const client = pack.built.createAuthorClient({
      baseUrl: `${baseUrl()}/api/v1/author`,
      token: account.token,
      fetch: conformingFetch,
    });

    const me = expectKind(await client.me(), 'ok');
    expect(me.data.handle).toBe(account.handle);
    expect(me.headers.rateLimit.limit).toBe(me.data.limits.read_per_min);

    const upload = expectKind(
      await client.uploadMedia(new Blob([new Uint8Array(png)], { type: 'image/png' }), 'day.png'),
      'ok',
    );
    expect(upload.data).toMatchObject({ kind: 'image', mime_type: 'image/png', width: 24, height: 16 });
    expect(upload.headers.rateLimit.remaining).toBe(upload.headers.rateLimit.limit - 1);

    const created = expectKind(
      await client.createPost({
        title: 'A day with the client',
        markdown: `Uploaded:\n\n![day](${upload.data.url})`,
        tags: ['api'],
        cover_url: files.url('/cover.png'),
      }),
      'ok',
    );
    expect(created.status).toBe(201);
    const { id } = created.data;
    expect(id).toMatch(UUID_RE);
    expect(created.data).toMatchObject({ status: 'draft', cover_width: 120, cover_height: 80 });
    expect(created.data.cover_url).toMatch(/^\/api\/media\/[0-9a-f-]{36}$/);
    expect(created.data.rehost_failed).toBeUndefined();

    const patched = expectKind(
      await client.updatePost(id, { subtitle: 'Edited' }, { ifMatch: created.headers.etag }),
      'ok',
    );
    expect(patched.data.subtitle).toBe('Edited');
    expect(patched.headers.etag).not.toBe(created.headers.etag);

    // The tag of the version before that edit is stale now.
    const stale = await client.updatePost(id, { title: 'Lost edit' }, { ifMatch: created.headers.etag });
    expectApiError(stale, 412, 'precondition_failed');

    const read = expectKind(await client.getPost(id), 'ok');
    expect(read.data.html).toContain(`src="${upload.data.url}"`);
    expect(read.headers.etag).toBe(patched.headers.etag);
    const unchanged = expectKind(await client.getPost(id, { ifNoneMatch: read.headers.etag }), 'not_modified');
    expect(unchanged).toMatchObject({ status: 304, headers: { etag: read.headers.etag } });

    // The publish window is one per minute here: keep both publishes inside one window.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 5) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const published = expectKind(await client.publishPost(id, { ifMatch: read.headers.etag }), 'ok');
    expect(published.data).toMatchObject({ status: 'published', has_unpublished_changes: false });
    expect(published.headers.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    const other = expectKind(await client.createPost({ title: 'Second', markdown: 'Two.' }), 'ok');
    const limited = expectApiError(await client.publishPost(other.data.id), 429, 'rate_limited');
    expect(limited.headers.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.rateLimit).toMatchObject({ limit: 1, remaining: 0 });

    const unpublished = expectKind(await client.unpublishPost(id), 'no_content');
    expect(unpublished.headers.etag).toMatch(/^"/);

    const third = expectKind(await client.createPost({ title: 'Third', markdown: 'Three.' }), 'ok');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = expectKind(await client.listPosts({ limit: 1, cursor }), 'ok');
      seen.push(...page.data.items.map((item) => item.id));
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([third.data.id, other.data.id, id]);

    expectApiError(await client.mediaFromUrl(upload.data.url), 400, undefined);
    expectApiError(await client.mediaFromUrl(files.url('/anim.webp')), 422, 'animated_image');

    const deleted = expectKind(await client.deletePost(id), 'no_content');
    expect(deleted.status).toBe(204);
    expectApiError(await client.getPost(id), 404, 'not_found');

    const stranger = pack.built.createAuthorClient({
      baseUrl: `${baseUrl()}/api/v1/author`,
      token: 'dp_live_nope',
      fetch: conformingFetch,
    });
    const refused = expectApiError(await stranger.me(), 401, 'unauthorized');
    expect(refused.error.error).toMatch(/\S/);
  });
});

describe('typed client example (docs/typed-client-example.ts)', () => {
  it('compiles against the package types', async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      '--target',
      'es2022',
      '--skipLibCheck',
      '--types',
      'node',
      EXAMPLE,
    ];
    const result = await run(process.execPath, [tsc, ...args], { cwd: ROOT }).catch((err: { stdout: string }) => ({
      stdout: err.stdout,
      failed: true,
    }));
    expect(result.stdout).toBe('');
  });

  it('creates, previews and publishes an article on the running service', async () => {
    const { token } = await newAccount();
    const result = await createPreviewAndPublish({ baseUrl: baseUrl(), token, fetch: conformingFetch });
    expect(result.status).toBe('published');
    expect(result.html).toContain('<strong>openapi-fetch</strong>');
    const stored = await api('GET', `/posts/${result.id}`, { token });
    expect(stored.body).toMatchObject({
      status: 'published',
      has_unpublished_changes: false,
      canonical_path: result.canonicalPath,
    });
  });
});
