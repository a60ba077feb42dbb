import { expect } from 'vitest';
import type { z } from 'zod';

/**
 * A result held to its REST output schema exactly: the REST procedures write their results with a
 * serializer compiled from the schema (server/http/json-serializers.ts), which drops unknown
 * fields and does not repeat zod's refinements, so the domain's results are checked here: every
 * field the schema names, of its type and format, and not one field more, at any depth.
 */
type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Paths of keys the schema does not have, anywhere in `value`. */
export function unknownKeys(schema: z.ZodType, value: unknown, path = ''): string[] {
  const def = defOf(schema);
  if (value === null || value === undefined) return [];
  if (def.type === 'nullable' || def.type === 'optional') return unknownKeys(def.innerType!, value, path);
  if (def.type === 'array' && Array.isArray(value))
    return value.flatMap((v, i) => unknownKeys(def.element!, v, `${path}[${i}]`));
  if (def.type !== 'object' || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    def.shape![k] ? unknownKeys(def.shape![k]!, v, path ? `${path}.${k}` : k) : [path ? `${path}.${k}` : k],
  );
}

export function expectExactly(schema: z.ZodType, value: unknown) {
  const parsed = schema.safeParse(value);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(unknownKeys(schema, value)).toEqual([]);
}
