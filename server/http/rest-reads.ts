/**
 * The read routes (`GET` procedures) answered without the tRPC adapter's per-request work.
 *
 * Through trpc-to-openapi, every read paid for: a WHATWG `URL`, route matching by regular
 * expressions over every route, re-marking the input schema for coercion, a tRPC caller proxy,
 * the middleware chain, zod validating and copying the output, and a generic `JSON.stringify`.
 * A CPU profile of `GET /me` under load put all of that above the route's own work. Here each
 * read procedure is taken apart once, at start-up, into what defines it, and the request runs
 * just that:
 * - the route (method, path template, rate class, success status): its meta (api/routes.ts),
 *   matched by `matchApiRoute` (api-path.ts), the same match the adapter makes;
 * - the input: the procedure's own zod input schema, coerced as the adapter coerces it;
 * - the context: `queryContext` (api/trpc.ts), the same function `authorProcedure` runs;
 * - the handler: the procedure's resolver;
 * - the output: a serializer compiled from the procedure's output schema (json-serializers.ts).
 *
 * Whatever is unusual goes to the adapter unchanged, so its answers stay the reference: a path
 * that is not plain (encoding, dots, trailing or doubled slashes, a fragment), an input
 * the schema refuses (the adapter charges the window and answers the 400), and any procedure
 * with middleware of its own besides `authorProcedure`'s, or a schema the serializer cannot
 * compile.
 */
import { coerceSchema, instanceofZodTypeObject, unwrapZodType } from 'trpc-to-openapi';
import type { z } from 'zod';
import { appRouter } from '../api/root';
import { API_ROUTES } from '../api/routes';
import type { RateClass } from '../services/rate-classes';
import { authorProcedure, queryContext, type ApiContext, type AuthorContext } from '../api/trpc';
import type { RequestHeaders } from '../api/authenticate';
import { matchApiRoute } from './api-path';
import { compileSerializer } from './json-serializers';

/** What a read writes its outcome to: the REST mount's pending response (rest-api.ts). */
export interface ReadOutcome {
  statusCode: number;
  body: string | undefined;
  error: unknown;
}

interface ReadRoute {
  input: z.ZodType | undefined;
  /** False for `z.void()`: the procedure gets `undefined`, whatever the query string says. */
  takesInput: boolean;
  resolve: (opts: { ctx: AuthorContext; input: unknown }) => Promise<unknown>;
  serialize: (value: unknown) => string;
  rate: RateClass;
  status: number;
}

interface ProcedureDef {
  type: string;
  inputs: z.ZodType[];
  output?: z.ZodType;
  middlewares: { _type?: string }[];
  resolver?: (opts: { ctx: AuthorContext; input: unknown }) => Promise<unknown>;
}

const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;
const AUTHOR_MIDDLEWARE = (authorProcedure as unknown as { _def: ProcedureDef })._def.middlewares[0];

/** A read procedure as a ReadRoute, or undefined when it must keep the adapter's path. */
function readRoute(procedure: string, rate: RateClass, status: number): ReadRoute | undefined {
  const def = procedures[procedure]?._def;
  if (!def || def.type !== 'query' || !def.resolver || !def.output || def.inputs.length > 1) return undefined;
  // authorProcedure's middleware, then the resolver: nothing else may be skipped.
  const own = def.middlewares.filter((m) => m._type !== 'input' && m._type !== 'output');
  if (own.length !== 2 || own[0] !== AUTHOR_MIDDLEWARE) return undefined;
  const input = def.inputs[0];
  if (input && !isPlainInput(input)) return undefined;
  let serialize;
  try {
    serialize = compileSerializer(def.output);
  } catch {
    return undefined;
  }
  return {
    input,
    takesInput: input !== undefined && !isVoid(input),
    resolve: def.resolver,
    serialize,
    rate,
    status,
  };
}

const zodType = (schema: unknown) => (schema as { _zod: { def: { type: string } } })._zod.def.type;
const isVoid = (schema: z.ZodType) => ['void', 'undefined', 'never'].includes(zodType(schema));

/** No input, `z.void()`, or an object of scalars (query and path parameters); coerced like the adapter does. */
function isPlainInput(schema: z.ZodType): boolean {
  if (isVoid(schema)) return true;
  const unwrapped = unwrapZodType(schema, true);
  if (!instanceofZodTypeObject(unwrapped)) return false;
  const shape = (unwrapped as unknown as { shape: Record<string, z.ZodType> }).shape;
  // The adapter wraps repeated query keys in arrays for array fields; that stays its job.
  for (const field of Object.values(shape)) {
    const inner = zodType(field) === 'optional' ? (field as unknown as { unwrap(): z.ZodType }).unwrap() : field;
    if (zodType(inner) === 'array') return false;
  }
  coerceSchema(unwrapped as never);
  return true;
}

/** The read routes this path answers, by procedure. */
const READ_ROUTES = new Map(
  API_ROUTES.flatMap((r) => {
    if (r.method !== 'GET' || !r.procedure) return [];
    const route = readRoute(r.procedure, r.rate, r.success);
    return route ? [[r.procedure, route] as const] : [];
  }),
);

/** Paths this path answers: letters, digits, `-`, `_` between single slashes. */
const PLAIN_PATH = /^(\/[A-Za-z0-9_-]+)+$/;

function match(subpath: string): { route: ReadRoute; params: Record<string, string> } | undefined {
  if (!PLAIN_PATH.test(subpath)) return undefined;
  const matched = matchApiRoute('GET', subpath);
  const route = matched?.route.procedure ? READ_ROUTES.get(matched.route.procedure) : undefined;
  return route && { route, params: matched!.params };
}

/** Query parameters as the adapter reads them: a repeated key gives an array. */
function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (search === '') return query;
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * Answers a `GET` below the mount point (`url` without the `/api/v1/author` prefix) into
 * `outcome`, charging the caller like any procedure. False when the request is not one this
 * path takes: the caller hands it to the adapter, which has seen nothing of it yet.
 */
export async function answerRead(
  url: string,
  headers: RequestHeaders,
  outcome: ReadOutcome & ApiContext['res'],
): Promise<boolean> {
  if (url.includes('#')) return false;
  const q = url.indexOf('?');
  const found = match(q === -1 ? url : url.slice(0, q));
  if (!found) return false;
  const { route, params } = found;
  let input: unknown;
  if (route.input) {
    // As the adapter: no input at all for a route without one (the query string is ignored).
    let raw: Record<string, unknown> | undefined;
    if (route.takesInput) {
      raw = queryOf(q === -1 ? '' : url.slice(q + 1));
      Object.assign(raw, params);
    }
    const parsed = route.input.safeParse(raw);
    if (!parsed.success) return false;
    input = parsed.data;
  }
  try {
    const ctx = await queryContext({ headers, res: outcome }, route.rate);
    outcome.body = route.serialize(await route.resolve({ ctx, input }));
    outcome.statusCode = route.status;
  } catch (err) {
    outcome.error = err;
  }
  return true;
}
