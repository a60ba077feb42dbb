import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../server/api/openapi/document';
import { operatorOpenApiJson } from '../../../server/api/openapi/operator';
import { route } from '../../../server/api/route-meta';
import { API_ROUTES } from '../../../server/api/routes';
import { authorProcedure, router, type ApiContext } from '../../../server/api/trpc';
import { DEFAULT_LIMITS } from '../../../server/model/rate-classes';

/**
 * Route facts live once, in each procedure's meta; the success status the REST mount sends,
 * the rate class the middleware charges and every status and header the OpenAPI document
 * declares are read from there. These tests hold the derived places to that one source.
 */
describe('route facts', () => {
  it('give every operation of the document exactly its success status and documented errors', () => {
    // The author API's operations, and nothing else (operator routes have a document of their own).
    const operations = Object.entries(
      openApiDocument.paths as Record<string, Record<string, { responses: object }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      API_ROUTES.map((r) => `${r.method} ${r.path}`).sort(),
    );
    for (const r of API_ROUTES) {
      const op = operations.find((o) => o.method === r.method && o.path === r.path)!.op;
      const statuses = Object.keys(op.responses).map(Number);
      const extra = r.conditional?.read ? [304] : [];
      expect(statuses.sort(), `${r.method} ${r.path}`).toEqual([r.success, ...extra, ...r.errors].sort());
    }
  });

  it('quote each rate class with the default limits themselves', () => {
    const me = (openApiDocument.paths as any)['/me'].get.description as string;
    expect(me).toContain(`${DEFAULT_LIMITS.read_per_min} requests per minute`);
    const publish = (openApiDocument.paths as any)['/posts/{id}/publish'].post.description as string;
    expect(publish).toContain(`${DEFAULT_LIMITS.publish_per_min} request per minute`);
    const upload = (openApiDocument.paths as any)['/media'].post.description as string;
    expect(upload).toContain(`${DEFAULT_LIMITS.daily_media_bytes / 1024 / 1024} MiB per UTC day`);
  });

  it('name the success status the REST mount answers with, by procedure', () => {
    const success = (procedure: string) => API_ROUTES.find((r) => r.procedure === procedure)?.success;
    expect(success('posts.create')).toBe(201);
    expect(success('posts.unpublish')).toBe(204);
    expect(success('posts.delete')).toBe(204);
    expect(success('posts.get')).toBe(200);
    expect(success('media.fromUrl')).toBe(200);
  });

  it('are required: an author procedure without route meta fails before touching a token', async () => {
    const bare = router({ ping: authorProcedure.query(() => 'pong') });
    // No parts: a procedure without route meta must fail before it reaches any of them.
    const caller = bare.createCaller({
      parts: {} as ApiContext['parts'],
      headers: { get: () => null },
      res: { setHeader() {}, chargedTo() {} },
    });
    await expect(caller.ping()).rejects.toThrow(/has no route meta/);
  });

  it('put what a route definition says into both the generator meta and the route facts', () => {
    const meta = route({
      method: 'POST',
      path: '/things',
      tags: ['things'],
      summary: 'Make a thing',
      success: 201,
      rate: 'write',
      errors: [400, 401],
    });
    expect(meta.openapi).toMatchObject({ method: 'POST', path: '/things', errorResponses: [400, 401] });
    expect(meta.route).toEqual({ method: 'POST', path: '/things', success: 201, rate: 'write', errors: [400, 401] });
    expect(route({ method: 'GET', path: '/x', tags: [], summary: 's', rate: 'read', errors: [] }).route?.success).toBe(
      200,
    );
  });
});

describe('operator routes', () => {
  it('are not in the author document, whose clients must not carry them', () => {
    expect(Object.keys(openApiDocument.paths as object)).not.toContain('/reader-events');
    expect(JSON.stringify(openApiDocument)).not.toMatch(/reader-events|operatorToken|READER_EVENTS_TOKEN/);
  });

  it('have a document of their own: POST /api/reader-events with its own token and the batch schema', () => {
    const doc = JSON.parse(operatorOpenApiJson);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api' })]);
    expect(Object.keys(doc.paths)).toEqual(['/reader-events']);
    const item = doc.paths['/reader-events'];
    expect(item.post.security).toEqual([{ operatorToken: [] }]);
    expect(Object.keys(item.post.responses).sort()).toEqual(['200', '400', '401', '404', '503']);
    const body = item.post.requestBody.content['application/json'].schema;
    expect(body.properties.events.maxItems).toBe(1000);
    expect(body.properties.events.items.properties.count).toMatchObject({ minimum: 1, maximum: 1000000 });
    expect(body.properties.events.items.properties.kind.enum).toEqual(
      expect.arrayContaining(['unopen', 'unread', 'uncomplete', 'unimpression']),
    );
    expect(body.properties.batch_id).toMatchObject({ minLength: 1, maxLength: 100 });
    expect(doc.components.schemas.ApiError).toBeDefined();
  });
});
