/**
 * JSON text of a response from the zod schema that documents it, without zod on the request.
 *
 * Through tRPC, a procedure's output is validated and copied by zod on every call, then the
 * copy goes through a generic `JSON.stringify`. For a result whose shape is fixed by the code
 * that produced it, both are pure cost (a page of 20 articles: 20 × 24 fields, two
 * regular expressions per article). `compileSerializer` compiles the schema once into a
 * function that writes the same text as `JSON.stringify(schema.parse(value))` for every value
 * the schema accepts: the schema's fields in the schema's order, unknown fields dropped (zod's
 * default), optional fields omitted when undefined.
 *
 * It still refuses what would be a wrong answer: a missing required field, a value of the wrong
 * JSON type (a string where a number belongs, `null` where the schema does not allow it, a
 * non-finite number) or a value outside an enum throws `ResponseShapeError` (a 500, as zod's
 * "Output validation failed" is). Refinements that cost a regular expression per value (uuid,
 * datetime formats) or a length check are not repeated here: the statements produce those
 * values; tests/domain/read-shapes.test.ts and write-shapes.test.ts hold the reads and the
 * writes to the schemas and tests/unit/http/json-serializers.test.ts this serializer to zod's
 * output.
 *
 * Only the zod types responses use are supported; compiling any other throws, which stops the
 * server at start-up (rest-procedures.ts) rather than answering with a wrong shape.
 */
import type { z } from 'zod';
import { jsonString } from '../foundation/json-string';

export class ResponseShapeError extends Error {
  override name = 'ResponseShapeError';
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  entries?: Record<string, string | number>;
}

/** zod 4's public description of a schema. */
const defOf = (schema: z.ZodType): ZodDef => schema.def as unknown as ZodDef;

function mismatch(path: string, expected: string, value: unknown): never {
  if (value === undefined) throw new ResponseShapeError(`response field ${path || '(root)'}: missing`);
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  throw new ResponseShapeError(`response field ${path || '(root)'}: expected ${expected}, got ${got}`);
}

/**
 * Compiles to JavaScript source, one function per object and array schema, like
 * fast-json-stringify does: V8 then runs straight-line code with the field names as constants,
 * which is about twice as fast as walking the schema at run time (and faster than the generic
 * `JSON.stringify` of the same object). Paths for error messages are only built on the error
 * branch. The generated source contains no text from outside the schema: keys are written with
 * JSON.stringify, enum values and nested functions are passed in as arguments.
 */
class Compiler {
  private readonly bindings: unknown[] = [];
  private readonly functions: string[] = [];

  private bind(value: unknown): string {
    this.bindings.push(value);
    return `b${this.bindings.length - 1}`;
  }

  /** A JS expression writing `v` (an expression cheap to repeat); `path` is evaluated only on error. */
  write(schema: z.ZodType, v: string, path: string): string {
    const def = defOf(schema);
    switch (def.type) {
      case 'string':
        return `(typeof ${v} === 'string' ? quote(${v}) : mismatch(${path}, 'a string', ${v}))`;
      case 'number':
        return `(typeof ${v} === 'number' && Number.isFinite(${v}) ? '' + ${v} : mismatch(${path}, 'a finite number', ${v}))`;
      case 'boolean':
        return `(${v} === true ? 'true' : ${v} === false ? 'false' : mismatch(${path}, 'a boolean', ${v}))`;
      case 'nullable':
        return `(${v} === null ? 'null' : ${this.write(def.innerType!, v, path)})`;
      case 'enum': {
        // Each allowed value's JSON text, written once here rather than per response.
        const allowed = new Map(Object.values(def.entries!).map((value) => [value, JSON.stringify(value)]));
        const names = JSON.stringify(`one of ${[...allowed.keys()].join(', ')}`);
        return `(${this.bind(allowed)}.get(${v}) ?? mismatch(${path}, ${names}, ${v}))`;
      }
      case 'array':
        return `${this.arrayFunction(def)}(${v}, ${path})`;
      case 'object':
        return `${this.objectFunction(def)}(${v}, ${path})`;
      default:
        throw new Error(`compileSerializer: zod type "${def.type}" is not supported`);
    }
  }

  private arrayFunction(def: ZodDef): string {
    const name = `f${this.functions.length}`;
    this.functions.push('');
    const slot = this.functions.length - 1;
    const element = this.write(def.element!, 'e', "path + '[' + i + ']'");
    this.functions[slot] = `function ${name}(v, path) {
  if (!Array.isArray(v)) return mismatch(path, 'an array', v);
  let out = '[';
  for (let i = 0; i < v.length; i++) { const e = v[i]; out += (i === 0 ? '' : ',') + ${element}; }
  return out + ']';
}`;
    return name;
  }

  private objectFunction(def: ZodDef): string {
    if (def.catchall) throw new Error('compileSerializer: objects that keep unknown keys are not supported');
    const name = `f${this.functions.length}`;
    this.functions.push('');
    const slot = this.functions.length - 1;
    // Whether a field was written before this one: known at compile time until an optional field
    // comes first, then tracked in `c`.
    let before: 'no' | 'yes' | 'maybe' = 'no';
    const locals: string[] = [];
    // Written as one concatenation while every field so far was required; `out +=` after that.
    const pieces: string[] = [];
    const lines: string[] = [];
    Object.entries(def.shape!).forEach(([key, fieldSchema], i) => {
      const fieldDef = defOf(fieldSchema);
      const optional = fieldDef.type === 'optional';
      const local = `v${i}`;
      const path = `(path ? path + '.' : '') + ${JSON.stringify(key)}`;
      const value = this.write(optional ? fieldDef.innerType! : fieldSchema, local, path);
      const label = JSON.stringify(`${JSON.stringify(key)}:`);
      const comma = before === 'no' ? '' : before === 'yes' ? "','" : "(c ? ',' : '')";
      const piece = comma ? `${comma} + ${label} + ${value}` : `${label} + ${value}`;
      locals.push(`const ${local} = v[${JSON.stringify(key)}];`);
      if (optional) {
        lines.push(`if (${local} !== undefined) { out += ${piece};${before === 'yes' ? '' : ' c = true;'} }`);
        if (before === 'no') before = 'maybe';
      } else {
        const checked = `(${local} === undefined ? mismatch(${path}, 'a value', undefined) : ${piece})`;
        if (lines.length === 0) pieces.push(checked);
        else lines.push(`out += ${checked};`);
        before = 'yes';
      }
    });
    this.functions[slot] = `function ${name}(v, path) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return mismatch(path, 'an object', v);
  ${locals.join('\n  ')}
  let c = false;
  let out = '{'${pieces.map((p) => ` + ${p}`).join('')};
  ${lines.join('\n  ')}
  return out + '}';
}`;
    return name;
  }

  build(schema: z.ZodType): (value: unknown) => string {
    const root = this.write(schema, 'value', "''");
    const names = this.bindings.map((_, i) => `b${i}`);
    const source = `${this.functions.join('\n')}\nreturn function serialize(value) { return ${root}; };`;
    const factory = new Function('quote', 'mismatch', ...names, source) as (
      ...args: unknown[]
    ) => (v: unknown) => string;
    return factory(jsonString, mismatch, ...this.bindings);
  }
}

/** The JSON text of `value` as `schema` describes it; throws ResponseShapeError on a wrong value. */
export function compileSerializer(schema: z.ZodType): (value: unknown) => string {
  return new Compiler().build(schema);
}
