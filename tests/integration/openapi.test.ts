import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { api, baseUrl, createPost, newAccount } from '../support/api';
import { startExtraService } from './media-helpers';
import {
  buildChecker,
  checkAgainst,
  checkResponse,
  ConformanceError,
  DOCUMENT_PATH,
  OPERATOR_DOCUMENT_PATH,
} from '../support/conformance';
import { API_ONLY, cli, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * The served OpenAPI document is exact (checked here against the contract's routes, written out
 * by hand so the document cannot agree with itself), valid, and every response of the suite
 * conforms to it (tests/support/conformance.ts, called by `api()`). The sweeps at the end
 * exercise each (route, status) pair the document declares.
 */
type Json = Record<string, any>;

const MISSING = '00000000-0000-4000-8000-000000000000';

/**
 * The contract's routes (docs/api.md "Routes"): success status first, then the documented error
 * statuses. Beyond the contract, conditional requests add 304 (If-None-Match) to GET /posts/{id} and 412 (If-Match) to the
 * article writes; clients that do not send those headers never see them.
 */
const ROUTES: Record<string, number[]> = {
  'GET /me': [200, 401, 429, 503],
  'GET /posts': [200, 400, 401, 429, 503],
  'GET /posts/{id}': [200, 304, 400, 401, 404, 429, 503],
  'POST /posts': [201, 400, 401, 409, 429, 503],
  'PATCH /posts/{id}': [200, 400, 401, 404, 409, 412, 429, 503],
  'POST /posts/{id}/publish': [200, 400, 401, 404, 412, 429, 503],
  'POST /posts/{id}/unpublish': [204, 400, 401, 404, 412, 429, 503],
  'DELETE /posts/{id}': [204, 400, 401, 404, 412, 429, 503],
  'POST /media': [200, 400, 401, 422, 429, 503],
  // 422 animated_image: from-url turns only animated GIFs into video; other animated images are refused.
  'POST /media/from-url': [200, 400, 401, 422, 429, 503],
};

let doc: Json;
let served: Response;

beforeAll(async () => {
  served = await fetch(`${baseUrl()}${DOCUMENT_PATH}`);
  doc = (await served.clone().json()) as Json;
});

/** The author API's operations. */
const operations = () =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
const op = (key: string) => operations().find((o) => o.key === key)!.op;
const deref = (node: Json): Json =>
  node?.$ref
    ? deref(
        String(node.$ref)
          .slice(2)
          .split('/')
          .reduce<Json>((n, k) => n[k.replace(/~1/g, '/')], doc),
      )
    : node;
const jsonSchema = (key: string, status: number) => deref(op(key).responses[status].content['application/json'].schema);

describe('the served OpenAPI document', () => {
  it('is served without auth, with cache validators, and is valid OpenAPI 3.1 (swagger-parser)', async () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const etag = served.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const revalidated = await fetch(`${baseUrl()}${DOCUMENT_PATH}`, { headers: { 'if-none-match': etag! } });
    expect(revalidated.status).toBe(304);

    expect(doc.openapi).toMatch(/^3\.1\./);
    // validate() dereferences in place: give it a copy.
    const validated = await SwaggerParser.validate(structuredClone(doc) as never);
    expect(validated.info.title).toBeTruthy();
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api/v1/author' })]);
  });

  it('names its absolute URL in servers when PUBLIC_ORIGIN is set, so a client needs no base URL by hand', async () => {
    const extra = await startExtraService({ ...API_ONLY, PUBLIC_ORIGIN: 'https://blog.example' });
    try {
      const served = (await (await fetch(`${extra.service.baseUrl}${DOCUMENT_PATH}`)).json()) as Json;
      expect(served.servers).toEqual([expect.objectContaining({ url: 'https://blog.example/api/v1/author' })]);
      await SwaggerParser.validate(structuredClone(served) as never);
    } finally {
      await extra.stop();
    }
  });

  it('states on every error what headers it carries: WWW-Authenticate on 401, RateLimit-* where the request was counted', () => {
    for (const { key, op: o } of operations()) {
      for (const [status, response] of Object.entries<Json>(o.responses)) {
        if (Number(status) < 400) continue;
        const headers = response.headers as Json;
        expect(headers['X-Request-Id'], `${key} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
        if (status === '401') {
          expect(headers['WWW-Authenticate'], key).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
          expect(headers, key).not.toHaveProperty('RateLimit-Limit');
        } else if (status !== '429') {
          for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
            expect(headers[name], `${key} ${status} ${name}`).toMatchObject({
              required: false,
              schema: { type: 'integer' },
            });
        }
      }
    }
    expect(doc.components.headers['WWW-Authenticate']).toMatchObject({ required: true, schema: { type: 'string' } });
  });

  it('lists only the author routes; the operator route is in a document of its own, also valid OpenAPI 3.1', async () => {
    expect(Object.keys(doc.paths).every((p) => p === '/me' || p.startsWith('/posts') || p.startsWith('/media'))).toBe(
      true,
    );
    expect(JSON.stringify(doc)).not.toMatch(/reader-events|operatorToken/);
    const operator = await fetch(`${baseUrl()}${OPERATOR_DOCUMENT_PATH}`);
    expect(operator.status).toBe(200);
    expect(operator.headers.get('etag')).toMatch(/^".+"$/);
    const operatorDoc = (await operator.json()) as Json;
    await SwaggerParser.validate(structuredClone(operatorDoc) as never);
    expect(operatorDoc.servers).toEqual([expect.objectContaining({ url: '/api' })]);
    expect(Object.keys(operatorDoc.paths)).toEqual(['/reader-events']);
    expect(operatorDoc.paths['/reader-events'].post.security).toEqual([{ operatorToken: [] }]);
  });

  it('describes exactly the routes of the contract with exactly their statuses', () => {
    const actual = Object.fromEntries(
      operations().map(({ key, op }) => [key, Object.keys(op.responses).map(Number).sort()]),
    );
    const expected = Object.fromEntries(Object.entries(ROUTES).map(([k, v]) => [k, [...v].sort()]));
    expect(actual).toEqual(expected);
  });

  it('declares 201 for POST /posts and 204 without any content for unpublish and delete', () => {
    expect(op('POST /posts').responses['201'].content['application/json']).toBeDefined();
    for (const key of ['POST /posts/{id}/unpublish', 'DELETE /posts/{id}']) {
      expect(op(key).responses['204']).toBeDefined();
      expect(op(key).responses['204']).not.toHaveProperty('content');
    }
    for (const { op: o } of operations())
      expect(o.responses).not.toHaveProperty('200.content.application/json.schema.not');
  });

  it('gives every error status the shared ApiError schema {error, code?}, each code its own status, ErrorCode as one union', () => {
    expect(doc.components.schemas.ApiError).toMatchObject({
      type: 'object',
      properties: { error: { type: 'string' }, code: { $ref: '#/components/schemas/ErrorCode' } },
      required: ['error'],
    });
    expect(doc.components.schemas.ErrorCode.enum).toEqual([
      'unauthorized',
      'not_found',
      'precondition_failed',
      'animated_image',
      'rate_limited',
      'service_unavailable',
    ]);
    // No schema named Error: generated clients would shadow the global Error with it.
    expect(doc.components.schemas).not.toHaveProperty('Error');
    const codeOf: Record<string, string | undefined> = {
      400: undefined,
      401: 'unauthorized',
      404: 'not_found',
      409: undefined,
      412: 'precondition_failed',
      422: 'animated_image',
      429: 'rate_limited',
      503: 'service_unavailable',
    };
    for (const { key, op: o } of operations()) {
      for (const [status, response] of Object.entries<Json>(o.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content['application/json'].schema;
        const code = codeOf[status];
        if (code === undefined) expect(schema, `${key} ${status}`).toEqual({ $ref: '#/components/schemas/ApiError' });
        else
          expect(schema, `${key} ${status}`).toEqual({
            allOf: [{ $ref: '#/components/schemas/ApiError' }],
            properties: { code: { const: code } },
            required: ['error', 'code'],
          });
      }
    }
    expect(Object.keys(doc.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
  });

  it('declares Retry-After and RateLimit-* on 429, RateLimit-* on successes, RateLimit-Reset as Unix time', () => {
    const names = (response: Json) => Object.keys(response.headers ?? {}).sort();
    const withEtag = [
      'GET /posts/{id}',
      'POST /posts',
      'PATCH /posts/{id}',
      'POST /posts/{id}/publish',
      'POST /posts/{id}/unpublish',
    ];
    for (const { key, op: o } of operations()) {
      expect(names(o.responses['429']), key).toEqual([
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        'X-Request-Id',
      ]);
      const success = Object.keys(o.responses).find((s) => Number(s) < 300)!;
      const etag = withEtag.includes(key) ? ['ETag'] : [];
      expect(names(o.responses[success]), key).toEqual([
        ...etag,
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'X-Request-Id',
      ]);
    }
    const reset = doc.components.headers['RateLimit-Reset'];
    expect(reset.schema.type).toBe('integer');
    expect(reset.description).toMatch(/Unix time/);
  });

  it('secures every operation with an http bearer scheme for dp_live_ tokens', () => {
    const schemes = Object.entries<Json>(doc.components.securitySchemes);
    expect(schemes).toHaveLength(1);
    const [name, scheme] = schemes[0]!;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(scheme.description).toMatch(/dp_live_/);
    for (const { key, op: o } of operations()) expect(o.security ?? doc.security, key).toEqual([{ [name]: [] }]);
  });

  it('has html only on GET /posts/{id}; rehost_failed and warnings only, and optional, on write responses', () => {
    const withHtml = jsonSchema('GET /posts/{id}', 200);
    expect(withHtml.properties.html).toEqual(expect.objectContaining({ type: 'string' }));
    expect(withHtml.required).toContain('html');
    const list = jsonSchema('GET /posts', 200);
    const item = deref(list.properties.items.items);
    const writes = [jsonSchema('POST /posts', 201), jsonSchema('PATCH /posts/{id}', 200)];
    for (const schema of [item, jsonSchema('POST /posts/{id}/publish', 200), ...writes]) {
      expect(schema.properties).not.toHaveProperty('html');
      expect(schema.additionalProperties).toBe(false);
    }
    for (const schema of writes) {
      for (const field of ['rehost_failed', 'warnings']) {
        expect(schema.properties[field]).toMatchObject({ type: 'array', items: { type: 'string' }, minItems: 1 });
        expect(schema.required).not.toContain(field);
      }
    }
    for (const schema of [withHtml, item]) {
      expect(schema.properties).not.toHaveProperty('rehost_failed');
      expect(schema.properties).not.toHaveProperty('warnings');
    }
  });

  it('describes POST /media as multipart/form-data with a binary file, and both media routes return the Media object', () => {
    const body = op('POST /media').requestBody;
    expect(Object.keys(body.content)).toEqual(['multipart/form-data']);
    expect(body.content['multipart/form-data'].schema).toMatchObject({
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' } },
    });
    const fromUrl = op('POST /media/from-url').requestBody.content['application/json'].schema;
    expect(fromUrl).toMatchObject({ required: ['url'], properties: { url: { type: 'string' } } });
    for (const key of ['POST /media', 'POST /media/from-url']) {
      const media = jsonSchema(key, 200);
      expect(Object.keys(media.properties).sort()).toEqual([
        'byte_size',
        'height',
        'id',
        'kind',
        'mime_type',
        'poster_url',
        'status',
        'url',
        'width',
      ]);
    }
  });

  it('declares the conditional request headers: If-None-Match and a bodyless 304 on GET /posts/{id}, If-Match and 412 on the writes', () => {
    const header = (key: string, name: string) =>
      (op(key).parameters ?? []).find((p: Json) => p.in === 'header' && p.name === name);
    expect(header('GET /posts/{id}', 'If-None-Match')).toMatchObject({ required: false, schema: { type: 'string' } });
    expect(op('GET /posts/{id}').responses['304']).not.toHaveProperty('content');
    expect(Object.keys(op('GET /posts/{id}').responses['304'].headers)).toContain('ETag');
    for (const key of [
      'PATCH /posts/{id}',
      'POST /posts/{id}/publish',
      'POST /posts/{id}/unpublish',
      'DELETE /posts/{id}',
    ]) {
      expect(header(key, 'If-Match'), key).toMatchObject({ required: false, schema: { type: 'string' } });
      expect(op(key).responses['412'].description, key).toMatch(/precondition_failed/);
    }
    expect(doc.components.headers.ETag.schema).toMatchObject({ type: 'string' });
  });

  it('takes no request body on GET, DELETE, publish and unpublish', () => {
    for (const key of [
      'GET /me',
      'GET /posts',
      'GET /posts/{id}',
      'DELETE /posts/{id}',
      'POST /posts/{id}/publish',
      'POST /posts/{id}/unpublish',
    ]) {
      expect(op(key).requestBody, key).toBeUndefined();
    }
  });
});

describe('the conformance check', () => {
  const headers = (extra: Record<string, string> = {}) =>
    new Headers({
      'content-type': 'application/json',
      'x-request-id': 'r',
      'ratelimit-limit': '60',
      'ratelimit-remaining': '59',
      'ratelimit-reset': '1900000000',
      etag: '"v1"',
      ...extra,
    });
  const check = (method: string, path: string, status: number, body: unknown, h = headers()) =>
    checkAgainst(
      buildChecker(doc),
      { method, path, status, headers: h, text: body === undefined ? '' : JSON.stringify(body) },
      { recordPair: false },
    );

  it('fails a drifted response: undeclared status, missing header, extra or missing field, body on 204', async () => {
    const { token } = await newAccount();
    const post = await createPost(token);
    const me = (await api('GET', '/me', { token })).body;
    expect(() => check('GET', '/me', 200, me)).not.toThrow();
    expect(() => check('GET', '/me', 201, me)).toThrow(ConformanceError);
    expect(() => check('GET', '/me', 500, { error: 'x' })).toThrow(/status not declared/);
    expect(() =>
      check('GET', '/me', 200, me, new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' })),
    ).toThrow(/RateLimit-Limit/);
    expect(() => check('GET', '/me', 200, { handle: me.handle })).toThrow(/limits/);
    expect(() => check('POST', '/posts', 201, { ...post, html: '<p>x</p>' })).toThrow(/additional properties/);
    expect(() => check('POST', '/posts', 201, { ...post, rehost_failed: [] })).toThrow(/fewer than 1/);
    expect(() => check('GET', `/posts?limit=1`, 200, { items: [{ ...post, html: '' }], next_cursor: null })).toThrow(
      ConformanceError,
    );
    expect(() => check('DELETE', `/posts/${post.id}`, 204, {})).toThrow(/no body/);
    expect(() => check('GET', `/posts/${post.id}`, 404, { error: 'Not found', code: 'not_found', issues: [] })).toThrow(
      /additional properties/,
    );
    expect(() => check('GET', '/me', 429, { error: 'x', code: 'rate_limited' })).toThrow(/Retry-After/);
    const noEtag = headers();
    noEtag.delete('etag');
    expect(() => check('POST', '/posts', 201, post, noEtag)).toThrow(/ETag/);
    expect(() => check('GET', `/posts/${post.id}`, 304, undefined)).not.toThrow();
    expect(() => check('GET', `/posts/${post.id}`, 304, {})).toThrow(/no body/);
    expect(() =>
      check('GET', '/me', 429, { error: 'x', code: 'rate_limited' }, headers({ 'retry-after': 'soon' })),
    ).toThrow(/Retry-After/);
    expect(() => check('PUT', `/posts/${post.id}`, 404, { error: 'Not found', code: 'not_found' })).not.toThrow();
    expect(() => check('PUT', `/posts/${post.id}`, 200, {})).toThrow(/does not declare/);
  });
});

describe('contract sweep: every (route, status) pair the document declares', () => {
  it('answers the success and client-error statuses of the article routes as declared', async () => {
    const { token } = await newAccount();
    const moderated = await newAccount({ moderated: true });
    const p = await createPost(token, { slug: `sweep-${Date.now()}` });
    const other = await createPost(token);

    // Each call goes through api(), which fails the test on any mismatch with the document.
    const expectStatus = async (status: number, ...args: Parameters<typeof api>) =>
      expect((await api(...args)).status, `${args[0]} ${args[1]}`).toBe(status);
    await expectStatus(200, 'GET', '/me', { token });
    await expectStatus(200, 'GET', '/posts?limit=1', { token });
    await expectStatus(400, 'GET', '/posts?status=bogus', { token });
    await expectStatus(200, 'GET', `/posts/${p.id}`, { token });
    await expectStatus(400, 'GET', '/posts/not-a-uuid', { token });
    await expectStatus(404, 'GET', `/posts/${MISSING}`, { token });
    await expectStatus(400, 'POST', '/posts', { token, json: { title: '' } });
    await expectStatus(409, 'POST', '/posts', { token, json: { title: 't', markdown: 'm', slug: p.slug } });
    await expectStatus(200, 'PATCH', `/posts/${p.id}`, { token, json: { title: 'Renamed' } });
    const etag = (await api('GET', `/posts/${p.id}`, { token })).headers.get('etag')!;
    await expectStatus(304, 'GET', `/posts/${p.id}`, { token, headers: { 'if-none-match': etag } });
    for (const [method, path] of [
      ['PATCH', `/posts/${p.id}`],
      ['POST', `/posts/${p.id}/publish`],
      ['POST', `/posts/${p.id}/unpublish`],
      ['DELETE', `/posts/${p.id}`],
    ] as const) {
      await expectStatus(412, method, path, {
        token,
        json: method === 'PATCH' ? { title: 'x' } : undefined,
        headers: { 'if-match': '"stale"' },
      });
    }
    await expectStatus(400, 'PATCH', `/posts/${p.id}`, { token, json: {} });
    await expectStatus(404, 'PATCH', `/posts/${MISSING}`, { token, json: { title: 'x' } });
    await expectStatus(409, 'PATCH', `/posts/${other.id}`, { token, json: { slug: p.slug } });
    await expectStatus(400, 'POST', `/posts/${p.id}/unpublish`, { token });
    await expectStatus(200, 'POST', `/posts/${p.id}/publish`, { token });
    await expectStatus(404, 'POST', `/posts/${MISSING}/publish`, { token });
    const pending = await createPost(moderated.token);
    await expectStatus(200, 'POST', `/posts/${pending.id}/publish`, { token: moderated.token });
    await expectStatus(400, 'POST', `/posts/${pending.id}/publish`, { token: moderated.token });
    await expectStatus(204, 'POST', `/posts/${p.id}/unpublish`, { token });
    await expectStatus(404, 'POST', `/posts/${MISSING}/unpublish`, { token });
    await expectStatus(400, 'DELETE', '/posts/not-a-uuid', { token });
    await expectStatus(204, 'DELETE', `/posts/${p.id}`, { token });
    await expectStatus(404, 'DELETE', `/posts/${p.id}`, { token });

    // 401 on every declared route, media included once they exist.
    for (const key of Object.keys(ROUTES)) {
      const [method, template] = key.split(' ') as [string, string];
      await expectStatus(401, method, template.replace('{id}', MISSING), {});
    }
  });

  it('answers 429 with its headers on every rated route once the window is used up', async () => {
    const { token } = await newAccount({
      limits: { read_per_min: 0, write_per_min: 0, publish_per_min: 0, media_per_min: 0 },
    });
    for (const key of Object.keys(ROUTES)) {
      const [method, template] = key.split(' ') as [string, string];
      const json =
        method === 'PATCH' || key === 'POST /posts'
          ? { title: 't', markdown: 'm' }
          : template === '/media/from-url'
            ? { url: 'https://example.com/a.png' }
            : undefined;
      const body = template === '/media' ? mediaForm(new Uint8Array([1, 2, 3])) : undefined;
      const res = await api(method, template.replace('{id}', MISSING), { token, json, body });
      expect(res.status, key).toBe(429);
      expect(res.body.code).toBe('rate_limited');
    }
  });
});

describe('contract sweep: the media routes', () => {
  // Images served from loopback (the service allows 127.0.0.0/8 for tests) for from-url.
  let files: Server;
  let filesUrl: string;
  let png: Buffer;
  let animatedGif: Buffer;
  let animatedWebp: Buffer;

  beforeAll(async () => {
    const frame = (r: number) =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: { r, g: 0, b: 0 } } })
        .png()
        .toBuffer();
    png = await frame(200);
    const frames = [await frame(255), await frame(0)];
    animatedGif = await sharp(frames, { join: { animated: true } })
      .gif({ loop: 0, delay: [100, 100] })
      .toBuffer();
    animatedWebp = await sharp(frames, { join: { animated: true } })
      .webp({ loop: 0 })
      .toBuffer();
    const served: Record<string, [string, Buffer]> = {
      '/image.png': ['image/png', png],
      '/animated.webp': ['image/webp', animatedWebp],
    };
    files = createServer((req, res) => {
      const file = served[req.url ?? ''];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file[0], 'content-length': file[1].length }).end(file[1]);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve())));

  it('answers 200, 400 and 422 as declared', async () => {
    const { token } = await newAccount();
    const upload = await api('POST', '/media', { token, body: mediaForm(png) });
    expect(upload.status).toBe(200);
    expect(upload.body).toMatchObject({ kind: 'image', status: 'ready', poster_url: null });
    expect((await api('POST', '/media', { token, body: new FormData() })).status).toBe(400);
    expect((await api('POST', '/media', { token, body: mediaForm(animatedGif, 'a.gif', 'image/gif') })).status).toBe(
      422,
    );

    const stored = await api('POST', '/media/from-url', { token, json: { url: `${filesUrl}/image.png` } });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ kind: 'image', status: 'ready' });
    expect((await api('POST', '/media/from-url', { token, json: { url: '' } })).status).toBe(400);
    expect((await api('POST', '/media/from-url', { token, json: { url: `${filesUrl}/animated.webp` } })).status).toBe(
      422,
    );
  });
});

describe('contract sweep: 503 on every route while PostgreSQL is down', () => {
  // Its own database and instance (as in failure.test.ts), so the shared service stays up.
  const dataDir = tempDataDir('publishing-openapi-503-');
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  let service: RunningService | undefined;
  let token: string;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
    service = await startService({ ...API_ONLY, DATA_DIR: dataDir, DATABASE_URL: pg.url });
    const created = await cli({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg.url }, [
      'account',
      'create',
      'openapi-503',
    ]);
    token = (created.json as { token: string }).token;
  });
  afterAll(async () => {
    await service?.stop();
    await pg?.stop();
    removeDataDir(dataDir);
  });

  it('answers 503 service_unavailable in the documented shape on every route', async () => {
    await pg!.stop();
    for (const key of Object.keys(ROUTES)) {
      const [method, template] = key.split(' ') as [string, string];
      const routePath = template.replace('{id}', MISSING);
      const json =
        method === 'PATCH' || key === 'POST /posts'
          ? { title: 't', markdown: 'm' }
          : template === '/media/from-url'
            ? { url: 'https://example.com/a.png' }
            : undefined;
      const res = await fetch(`${service!.baseUrl}/api/v1/author${routePath}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : template === '/media' ? mediaForm(new Uint8Array([1, 2, 3])) : undefined,
      });
      const text = await res.text();
      await checkResponse({ method, path: routePath, status: res.status, headers: res.headers, text });
      expect(res.status, key).toBe(503);
      expect(JSON.parse(text).code).toBe('service_unavailable');
    }
  });
});

function mediaForm(bytes: Uint8Array, name = 'image.png', type = 'image/png'): FormData {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
}
