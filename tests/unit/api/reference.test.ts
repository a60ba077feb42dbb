import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../server/api/openapi/document';
import { referenceOperations, schemaRows, typeOf } from '../../../server/api/openapi/reference';

/** The console's API reference is built from these rows: every operation, every field, no guessing. */
describe('API reference rows', () => {
  const operations = referenceOperations(openApiDocument);

  it('list every operation of the document once, in document order', () => {
    const expected: string[] = [];
    for (const [path, item] of Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'])
        if (item[method]) expected.push(`${method.toUpperCase()} ${path}`);
    }
    expect(operations.map((op) => `${op.method} ${op.path}`)).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
  });

  it('show the write fields of PATCH /posts/{id} with their limits, and its path id and If-Match header', () => {
    const patch = operations.find((op) => op.method === 'PATCH' && op.path === '/posts/{id}')!;
    const field = (name: string) => patch.requestFields.find((f) => f.name === name)!;
    expect(field('title')).toMatchObject({
      type: 'string',
      constraints: expect.arrayContaining(['at most 300 characters']),
    });
    expect(field('subtitle').type).toBe('string | null');
    expect(field('tags')).toMatchObject({
      type: 'array of string',
      constraints: expect.arrayContaining(['at most 20 items']),
    });
    expect(field('cover_asset_id').type).toBe('string (uuid) | null');
    expect(patch.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'header:If-Match']),
    );
    expect(patch.parameters.find((p) => p.name === 'id')!.required).toBe(true);
    const statuses = patch.responses.map((r) => r.status);
    expect(statuses).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409', '412', '429', '503']));
  });

  it('expand $ref response bodies into named fields', () => {
    const me = operations.find((op) => op.method === 'GET' && op.path === '/me')!;
    const ok = me.responses.find((r) => r.status === '200')!;
    expect(ok.headers).toEqual(expect.arrayContaining(['RateLimit-Limit', 'X-Request-Id']));
    expect(ok.fields.map((f) => f.name)).toEqual(
      expect.arrayContaining(['handle', 'limits', 'limits.daily_media_bytes']),
    );
  });

  it('flatten nested objects and arrays of objects with dotted names', () => {
    const doc = {
      components: {
        schemas: { Item: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] } },
      },
    };
    const rows = schemaRows(
      doc,
      {
        type: 'object',
        required: ['items'],
        properties: {
          items: { type: 'array', items: { $ref: '#/components/schemas/Item' }, maxItems: 5 },
          meta: { type: 'object', properties: { note: { type: ['string', 'null'], description: 'free text' } } },
          kind: { enum: ['a', 'b'] },
        },
      },
      '',
      true,
    );
    expect(rows.map((r) => [r.name, r.type, r.required])).toEqual([
      ['items', 'array of objects', true],
      ['items[].n', 'integer', true],
      ['meta', 'object', false],
      ['meta.note', 'string | null', false],
      ['kind', '"a" | "b"', false],
    ]);
    expect(rows[1]!.constraints).toEqual(['≥ 1']);
    expect(rows[3]!.description).toBe('free text');
    expect(typeOf(doc, { $ref: '#/components/schemas/Item' })).toBe('Item');
  });
});
