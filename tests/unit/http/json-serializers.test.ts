import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { MeOutput } from '../../../server/api/me/me.schema';
import { ListPostsOutput } from '../../../server/api/posts/list.schema';
import {
  AuthorPostSchema,
  AuthorPostWithHtmlSchema,
  AuthorPostWriteSchema,
} from '../../../server/services/posts/author-post.schema';
import { MediaSchema } from '../../../server/services/media/media.schema';
import { compileSerializer, ResponseShapeError } from '../../../server/http/json-serializers';

/**
 * The REST routes write their JSON with a serializer compiled from the output schema instead
 * of zod's parse and JSON.stringify. For every value the schema accepts, the text must be the
 * one the generic path wrote; for a value it refuses (missing field, wrong type), it throws.
 */

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
/** Any UTF-16 string: quotes, backslashes, control characters, lone surrogates; short and long. */
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.string({ minLength: 40, maxLength: 200 }),
);
/** Strings as the formats of these schemas require them, by field name; any string elsewhere. */
const stringFor = (key: string) =>
  key === 'id' || (key.endsWith('_id') && key !== 'public_id')
    ? fc.uuid()
    : key.endsWith('_at')
      ? isoDate
      : key === 'url' || key === 'poster_url'
        ? fc.uuid().map((id) => `/api/media/${id}`)
        : anyString;
/** Media sizes are positive; other counts any integer. */
const POSITIVE = new Set(['byte_size', 'width', 'height']);

/** Values the schema accepts, with unknown keys mixed in (the schema drops them); optional keys present or not. */
function valid(schema: z.ZodType, key = ''): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return stringFor(key);
    case 'number':
      return fc.integer({ min: POSITIVE.has(key) ? 1 : -(2 ** 40), max: 2 ** 40 });
    case 'boolean':
      return fc.boolean();
    case 'nullable':
      return fc.option(valid(def.innerType!, key), { nil: null });
    case 'optional':
      return fc.option(valid(def.innerType!, key), { nil: undefined });
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries!));
    case 'array':
      return fc.array(valid(def.element!, key), { minLength: 1, maxLength: 4 });
    case 'object': {
      const shape = def.shape!;
      const fields = Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, valid(s, k)]));
      const requiredKeys = Object.keys(shape).filter((k) => defOf(shape[k]!).type !== 'optional');
      const extra = fc.dictionary(fc.constantFrom('extra', 'rehostCauses', 'secret_hash'), fc.jsonValue());
      return fc.tuple(fc.record(fields, { requiredKeys }), extra).map(([known, more]) => ({ ...more, ...known }));
    }
    default:
      throw new Error(`no arbitrary for ${def.type}`);
  }
}

const SCHEMAS = {
  AuthorPostSchema,
  AuthorPostWithHtmlSchema,
  AuthorPostWriteSchema,
  ListPostsOutput,
  MeOutput,
  MediaSchema,
} as Record<string, z.ZodType>;

describe('compileSerializer', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`writes exactly JSON.stringify(schema.parse(value)) for any value ${name} accepts`, () => {
      const serialize = compileSerializer(schema);
      fc.assert(
        fc.property(valid(schema), (value) => {
          const parsed = schema.safeParse(value);
          expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
          expect(serialize(value)).toBe(JSON.stringify(parsed.data));
        }),
        { numRuns: 200 },
      );
    });
  }

  it('refuses a response that misses a required field, naming it', () => {
    const serialize = compileSerializer(ListPostsOutput);
    fc.assert(
      fc.property(valid(AuthorPostSchema), fc.nat(), (post, pick) => {
        const keys = Object.keys(AuthorPostSchema.shape);
        const missing = keys[pick % keys.length]!;
        const item = { ...(post as object) } as Record<string, unknown>;
        delete item[missing];
        expect(() => serialize({ items: [item], next_cursor: null })).toThrow(
          new ResponseShapeError(`response field items[0].${missing}: missing`),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a value of the wrong JSON type, null where not allowed, a non-finite number, an unknown enum value', () => {
    const serialize = compileSerializer(AuthorPostWithHtmlSchema);
    const post = fc.sample(valid(AuthorPostWithHtmlSchema), { numRuns: 1, seed: 7 })[0] as Record<string, unknown>;
    expect(() => serialize(post)).not.toThrow();
    const wrong: [string, unknown][] = [
      ['title', 12],
      ['title', null],
      ['html', undefined],
      ['like_count', '3'],
      ['like_count', Number.NaN],
      ['cover_width', Number.POSITIVE_INFINITY],
      ['has_unpublished_changes', 'false'],
      ['status', 'archived'],
      ['tags', { slug: 'a', name: 'A' }],
      ['tags', [{ slug: 'a' }]],
    ];
    for (const [key, value] of wrong)
      expect(() => serialize({ ...post, [key]: value }), `${key}: ${String(value)}`).toThrow(ResponseShapeError);
    expect(() => serialize([post])).toThrow(ResponseShapeError);
  });

  it('refuses to compile a schema type it does not know, rather than write it wrongly', async () => {
    const { z } = await import('zod');
    expect(() => compileSerializer(z.object({ when: z.date() }))).toThrow(/not supported/);
    expect(() => compileSerializer(z.object({ a: z.string() }).passthrough())).toThrow(/not supported/);
  });
});
