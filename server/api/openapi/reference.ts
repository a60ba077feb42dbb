import type { JsonObject } from './types';

/**
 * The OpenAPI document turned into plain rows for the console's API reference page: one entry
 * per operation, and each JSON Schema flattened into field rows (`tags[]`, `cover.url`…) with
 * a readable type and its constraints. Pure data in, data out, so the page is a simple
 * server-rendered table and the flattening is tested on its own.
 */

export interface FieldRow {
  /** Dotted path of the field; `[]` marks array items. Empty for a schema that is not an object. */
  name: string;
  type: string;
  required: boolean;
  constraints: string[];
  description?: string;
}

interface ParameterRow extends FieldRow {
  in: string;
}

interface ResponseEntry {
  status: string;
  description: string;
  headers: string[];
  schemaName?: string;
  fields: FieldRow[];
}

export interface OperationEntry {
  method: string;
  path: string;
  id: string;
  summary?: string;
  description?: string;
  parameters: ParameterRow[];
  requestContentType?: string;
  requestFields: FieldRow[];
  responses: ResponseEntry[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Deeper nesting is shown as the type name only; the documents here never go that far. */
const MAX_DEPTH = 4;

export function referenceOperations(doc: JsonObject): OperationEntry[] {
  const out: OperationEntry[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, JsonObject][]) {
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (!op) continue;
      const content = (op.requestBody?.content ?? {}) as JsonObject;
      const requestContentType = Object.keys(content)[0];
      out.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method}-${path}`,
        summary: op.summary,
        description: op.description,
        parameters: ((op.parameters ?? []) as JsonObject[]).map((p) => {
          const param = resolve(doc, p);
          const [row] = schemaRows(doc, param.schema ?? {}, param.name, Boolean(param.required));
          return { ...row!, in: param.in, description: param.description ?? row!.description };
        }),
        requestContentType,
        requestFields: requestContentType ? schemaRows(doc, content[requestContentType].schema ?? {}, '', true) : [],
        responses: Object.entries((op.responses ?? {}) as JsonObject).map(([status, r]) => {
          const response = resolve(doc, r);
          const body = response.content ? (Object.values(response.content)[0] as JsonObject).schema : undefined;
          return {
            status,
            description: response.description ?? '',
            headers: Object.keys(response.headers ?? {}),
            schemaName: body?.$ref ? refName(body.$ref) : undefined,
            fields: body ? schemaRows(doc, body, '', true) : [],
          };
        }),
      });
    }
  }
  return out;
}

/** Rows of a schema: the object's properties (recursively), or one row for anything else. */
export function schemaRows(
  doc: JsonObject,
  schema: JsonObject,
  name: string,
  required: boolean,
  depth = 0,
): FieldRow[] {
  const s = resolve(doc, schema);
  const rows: FieldRow[] = [];
  const objectLike = s.type === 'object' || (s.properties && !s.type);
  if (objectLike && s.properties && depth < MAX_DEPTH) {
    if (name) rows.push({ name, type: 'object', required, constraints: constraintsOf(s), description: s.description });
    const needed = new Set<string>(s.required ?? []);
    for (const [key, child] of Object.entries(s.properties as JsonObject)) {
      rows.push(...schemaRows(doc, child as JsonObject, name ? `${name}.${key}` : key, needed.has(key), depth + 1));
    }
    return rows;
  }
  const items = s.type === 'array' && s.items ? resolve(doc, s.items) : undefined;
  if (items && (items.type === 'object' || items.properties) && depth < MAX_DEPTH) {
    rows.push({ name, type: 'array of objects', required, constraints: constraintsOf(s), description: s.description });
    rows.push(...schemaRows(doc, items, `${name}[]`, true, depth + 1).filter((r) => r.name !== `${name}[]`));
    return rows;
  }
  rows.push({
    name,
    type: typeOf(doc, s),
    required,
    constraints: constraintsOf(s, items),
    description: s.description ?? alternativeDescription(doc, s),
  });
  return rows;
}

/** `string`, `string (uuid)`, `integer | null`, `array of string`, or a schema's name. */
export function typeOf(doc: JsonObject, schema: JsonObject): string {
  if (schema.$ref) return refName(schema.$ref);
  const s = schema;
  const alternatives = (s.anyOf ?? s.oneOf) as JsonObject[] | undefined;
  if (alternatives) return [...new Set(alternatives.map((a) => typeOf(doc, a)))].join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  const types = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  if (types.length === 0) return s.properties ? 'object' : 'any';
  return types
    .map((t) => {
      if (t === 'array') return `array of ${s.items ? typeOf(doc, s.items) : 'any'}`;
      return s.format && t !== 'null' ? `${t} (${s.format})` : t;
    })
    .join(' | ');
}

function constraintsOf(s: JsonObject, items?: JsonObject): string[] {
  const out: string[] = [];
  const alternatives = ((s.anyOf ?? s.oneOf) as JsonObject[] | undefined) ?? [];
  for (const source of [s, ...alternatives, ...(items ? [items] : [])]) {
    const prefix = source === items ? 'each: ' : '';
    if (source.minLength !== undefined) out.push(`${prefix}at least ${source.minLength} characters`);
    if (source.maxLength !== undefined)
      out.push(`${prefix}at most ${source.maxLength.toLocaleString('en-US')} characters`);
    if (source.minimum !== undefined) out.push(`${prefix}≥ ${source.minimum}`);
    if (source.maximum !== undefined) out.push(`${prefix}≤ ${source.maximum}`);
    if (source.minItems !== undefined) out.push(`at least ${source.minItems} items`);
    if (source.maxItems !== undefined) out.push(`at most ${source.maxItems} items`);
    if (source.minProperties !== undefined)
      out.push(`at least ${source.minProperties} field${source.minProperties === 1 ? '' : 's'}`);
    if (source.pattern !== undefined && source.format !== 'uuid') out.push(`${prefix}matches ${source.pattern}`);
    if (source.additionalProperties === false) out.push('no other fields');
    if (source.default !== undefined) out.push(`default ${JSON.stringify(source.default)}`);
  }
  return [...new Set(out)];
}

function alternativeDescription(doc: JsonObject, s: JsonObject): string | undefined {
  const alternatives = (s.anyOf ?? s.oneOf) as JsonObject[] | undefined;
  return alternatives?.map((a) => resolve(doc, a).description).find(Boolean);
}

/** Follows a local `$ref` (`#/components/…`); anything else is returned as it is. */
function resolve(doc: JsonObject, value: JsonObject): JsonObject {
  let current = value;
  for (let hops = 0; current?.$ref && hops < 8; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) break;
    const target = ref
      .slice(2)
      .split('/')
      .reduce<JsonObject | undefined>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (!target) break;
    current = { ...target, ...(current.description ? { description: current.description } : {}) };
  }
  return current;
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}
