/**
 * One validation pass, stated by the document: the write rules a PATCH or POST body is held to
 * are the procedure's input schema, so the OpenAPI document carries each of them, and what the
 * document says a slug is, is exactly what a write accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../../server/api/openapi/document';
import { parsePostWrite } from '../../../server/services/posts/post-rules';

type Schema = Record<string, any>;
const bodyOf = (path: string, method: string): Schema => {
  const key = Object.keys((openApiDocument as Schema).paths).find((k) => k.endsWith(path))!;
  return (openApiDocument as Schema).paths[key][method].requestBody.content['application/json'].schema;
};

describe('write rules in the OpenAPI document', () => {
  for (const [path, method] of [
    ['/posts', 'post'],
    ['/posts/{id}', 'patch'],
  ] as const) {
    it(`${method.toUpperCase()} ${path} states the slug's pattern and length, the cover URL's form, the field limits`, () => {
      const body = bodyOf(path, method);
      expect(body.properties.slug).toMatchObject({ type: 'string', maxLength: 100, pattern: expect.any(String) });
      expect(body.properties.title).toMatchObject({ minLength: 1, maxLength: 300 });
      expect(body.properties.tags).toMatchObject({ maxItems: 20 });
      const coverUrl = body.properties.cover_url.anyOf.find((s: Schema) => s.type === 'string');
      expect(coverUrl.description).toMatch(/absolute http\(s\) URL/);
    });
  }

  it('a slug matches the documented pattern and length exactly when a write accepts it', () => {
    const slug = bodyOf('/posts/{id}', 'patch').properties.slug;
    const pattern = new RegExp(slug.pattern);
    let ran = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.stringMatching(/^[a-z0-9-]{0,110}$/),
          fc.string({ maxLength: 120 }),
          fc.constantFrom('a', 'a-b', 'a--b', '-a', 'a-', 'A', 'x'.repeat(100), 'x'.repeat(101)),
        ),
        (candidate) => {
          ran++;
          const documented = candidate.length <= slug.maxLength && pattern.test(candidate);
          let accepted = true;
          try {
            parsePostWrite({ slug: candidate }, 'update');
          } catch {
            accepted = false;
          }
          expect(accepted).toBe(documented);
        },
      ),
      { numRuns: 500 },
    );
    expect(ran).toBeGreaterThanOrEqual(500);
  });

  it('states the one-cover rule: both covers given is refused, either alone or both null is not', () => {
    for (const [path, method] of [
      ['/posts', 'post'],
      ['/posts/{id}', 'patch'],
    ] as const) {
      const ajv = new Ajv2020({ strict: false });
      const validate = ajv.compile({ ...bodyOf(path, method), $defs: undefined });
      const base = { title: 'T', markdown: 'M' };
      const asset = '00000000-0000-4000-8000-000000000000';
      const url = 'https://example.com/c.png';
      expect(validate({ ...base, cover_asset_id: asset, cover_url: url }), `${method} both`).toBe(false);
      expect(validate({ ...base, cover_asset_id: asset }), `${method} asset`).toBe(true);
      expect(validate({ ...base, cover_url: url }), `${method} url`).toBe(true);
      expect(validate({ ...base, cover_asset_id: null, cover_url: null }), `${method} both null`).toBe(true);
      expect(validate({ ...base, cover_asset_id: asset, cover_url: null }), `${method} asset and null`).toBe(true);
    }
  });
});
