/**
 * JSON text of a response from the zod schema that documents it, without zod on the request.
 *
 * A procedure's output schema is validated and copied by zod on every call through tRPC, then
 * the copy goes through a generic `JSON.stringify`. For a read whose shape is fixed by the
 * statement that produced it, both are pure cost (a page of 20 articles: 20 × 24 fields, two
 * regular expressions per article). `compileSerializer` walks the schema once and returns a
 * function that writes the same text as `JSON.stringify(schema.parse(value))` for every value
 * the schema accepts: the schema's fields in the schema's order, unknown fields dropped (zod's
 * default), optional fields omitted when undefined.
 *
 * It still refuses what would be a wrong answer: a missing required field, a value of the wrong
 * JSON type (a string where a number belongs, `null` where the schema does not allow it, a
 * non-finite number) or a value outside an enum throws `ResponseShapeError` (a 500, as zod's
 * "Output validation failed" is). Refinements that cost a regular expression per value (uuid,
 * datetime formats) or a length check are not repeated here: the statements produce those
 * values, and tests/unit/http/json-serializers.test.ts plus the conformance checks of the
 * integration suite hold them to the schema.
 *
 * Only the zod types responses use are supported; compiling any other throws, so a route with
 * such an output keeps the generic path (see rest-reads.ts).
 */
import type { z } from 'zod';

export class ResponseShapeError extends Error {
  override name = 'ResponseShapeError';
}

type Serialize = (value: unknown, path: string) => string;

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  entries?: Record<string, string | number>;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function mismatch(path: string, expected: string, value: unknown): never {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  throw new ResponseShapeError(`response field ${path || '(root)'}: expected ${expected}, got ${got}`);
}

const writeString: Serialize = (value, path) =>
  typeof value === 'string' ? JSON.stringify(value) : mismatch(path, 'a string', value);

const writeNumber: Serialize = (value, path) =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : mismatch(path, 'a finite number', value);

const writeBoolean: Serialize = (value, path) =>
  value === true ? 'true' : value === false ? 'false' : mismatch(path, 'a boolean', value);

function compile(schema: z.ZodType): Serialize {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return writeString;
    case 'number':
      return writeNumber;
    case 'boolean':
      return writeBoolean;
    case 'nullable': {
      const inner = compile(def.innerType!);
      return (value, path) => (value === null ? 'null' : inner(value, path));
    }
    case 'enum': {
      const allowed = new Set(Object.values(def.entries!));
      const names = [...allowed].join(', ');
      return (value, path) =>
        allowed.has(value as string) ? JSON.stringify(value) : mismatch(path, `one of ${names}`, value);
    }
    case 'array': {
      const element = compile(def.element!);
      return (value, path) => {
        if (!Array.isArray(value)) return mismatch(path, 'an array', value);
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + element(value[i], `${path}[${i}]`);
        return out + ']';
      };
    }
    case 'object':
      return compileObject(def);
    default:
      throw new Error(`compileSerializer: zod type "${def.type}" is not supported`);
  }
}

function compileObject(def: ZodDef): Serialize {
  if (def.catchall) throw new Error('compileSerializer: objects that keep unknown keys are not supported');
  const fields = Object.entries(def.shape!).map(([key, fieldSchema]) => {
    const fieldDef = defOf(fieldSchema);
    const optional = fieldDef.type === 'optional';
    return {
      key,
      // `"key":` as JSON.stringify writes it (keys are ordinary identifiers, but escape anyway).
      label: `${JSON.stringify(key)}:`,
      optional,
      write: compile(optional ? fieldDef.innerType! : fieldSchema),
    };
  });
  return (value, path) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return mismatch(path, 'an object', value);
    const record = value as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const field of fields) {
      const v = record[field.key];
      if (v === undefined) {
        if (field.optional) continue;
        throw new ResponseShapeError(`response field ${path ? `${path}.` : ''}${field.key}: missing`);
      }
      out += (first ? '' : ',') + field.label + field.write(v, path ? `${path}.${field.key}` : field.key);
      first = false;
    }
    return out + '}';
  };
}

/** The JSON text of `value` as `schema` describes it; throws ResponseShapeError on a wrong value. */
export function compileSerializer(schema: z.ZodType): (value: unknown) => string {
  const write = compile(schema);
  return (value) => write(value, '');
}
