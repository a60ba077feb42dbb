/**
 * The procedures of `/api/v1/author` (server/api/root.ts), run directly: reads and writes alike,
 * without trpc-to-openapi's HTTP adapter or tRPC's caller.
 *
 * Why not the adapter: per request it builds a WHATWG `URL` and a fetch `Request` (for its abort
 * signal), matches the route a second time by regular expressions over every route, re-marks the
 * input schema for coercion, goes through tRPC's caller, has zod parse and copy the output and
 * writes it with a generic `JSON.stringify`; and its error bodies are tRPC's, not the contract's.
 * Why not tRPC's caller alone: its middleware chain. In process (bench/procedure-dispatch.ts),
 * over the handler's own work, a GET /me or GET /posts/{id} costs 2–4 µs of CPU through this
 * file, about 35 µs through `createCaller` and 70–90 µs through the adapter, against about
 * 120 µs per read in the service under load. So each procedure is taken apart once, at
 * start-up, into what defines it, and a request runs just that:
 * - the route (method, path template, rate class, success status): its meta (api/routes.ts),
 *   matched once by `matchApiRoute` (api-path.ts) in rest-api.ts, which hands the match here;
 * - the input: the procedure's own zod input schema, fed what trpc-to-openapi's adapter would
 *   feed it (see `rawInput`), so the OpenAPI document it generates describes exactly what is
 *   accepted; a number in a query string is read only from its plain decimal spelling (see
 *   `integerQueryValue`), where the adapter's coercion would read whatever `Number()` reads;
 * - the context: the procedure's `.use()` middlewares, run for real and as tRPC runs them
 *   (`procedureCall`, api/procedure-internals.ts), around the input's parse and the handler
 *   (`authorProcedure`'s admits and charges the caller before the input is parsed, so a refused
 *   input is a charged 400 with RateLimit-*; `authorReadFirstProcedure`'s lets the handler's
 *   read admit, api/trpc.ts);
 * - the handler: the procedure's resolver;
 * - the output: a serializer compiled from the procedure's output schema (json-serializers.ts);
 *   `z.void()` outputs (the 204 routes) must resolve to nothing.
 *
 * What a procedure is made of, and how tRPC runs its middlewares, is api/procedure-internals.ts,
 * the one file that knows tRPC's internals: nothing here reads `_def`. A procedure that cannot
 * be run this way (no middleware admitting the caller, one after `.input()`, an `.errors()`
 * formatter, several input schemas, an output the serializer cannot compile) stops the server at
 * start-up: there is no second path to fall back to. trpc-to-openapi still reads the same
 * procedures for the OpenAPI document (api/openapi/).
 */
import { instanceofZodTypeObject, unwrapZodType } from 'trpc-to-openapi';
import type { z } from 'zod';
import { appRouter } from '../api/root';
import { API_ROUTES, type ApiRoute } from '../api/routes';
import type { RateClass } from '../model/rate-classes';
import type { Authenticated } from '../model/account';
import { invalid, type LimitWindow } from '../foundation/errors';
import type { ApiContext } from '../api/trpc';
import { procedureCall, procedureDefinitions, procedureParts, type ProcedureRun } from '../api/procedure-internals';
import type { AppParts } from '../runtime/parts';
import type { RequestHeaders } from '../admission/admit';
import type { MatchedRoute } from './api-path';
import { describeZodError, rateLimitHeaders } from './errors';
import { ResponseShapeError, compileSerializer } from './json-serializers';

/**
 * What a procedure produced, kept until rest-api.ts writes it in the contract's shape: a status
 * and JSON text on success, the error as thrown on failure, and in both cases the headers the
 * procedure set (ETag) and the minute window it was charged to (RateLimit-*).
 */
export class ProcedureOutcome {
  statusCode = 200;
  readonly headers: Record<string, string | string[]> = {};
  /** The JSON text of the result; undefined for a 204. */
  body: string | undefined;
  /** What the procedure failed with, as thrown. */
  error: unknown;
  /** The minute window the request was charged to. */
  window: LimitWindow | undefined;

  setHeader(name: string, value: string | string[]): void {
    this.headers[name.toLowerCase()] = value;
  }
  chargedTo(window: LimitWindow): void {
    this.window = window;
  }
  /** Headers gathered for the response: the procedure's own and the window's RateLimit-*. */
  gathered(): Record<string, string | string[]> {
    return this.window ? { ...this.headers, ...rateLimitHeaders(this.window, false) } : this.headers;
  }
}

interface CompiledProcedure {
  input: z.ZodType | undefined;
  /** False for `z.void()`: the procedure gets `undefined`, whatever the request carries. */
  takesInput: boolean;
  /** Fields the query string fills as arrays: a single value is wrapped, as the adapter does. */
  arrayFields: readonly string[];
  /** Number fields the query string fills: read from their decimal spelling only (`integerQueryValue`). */
  numberFields: readonly string[];
  /** The procedure's middlewares, then the input's parse and the resolver (api/procedure-internals.ts). */
  call: ProcedureRun;
  /** The JSON text of the result, or undefined for a `z.void()` output. */
  serialize: (value: unknown) => string | undefined;
  rate: RateClass;
  status: number;
}

const procedures = procedureDefinitions(appRouter);

/** A schema's kind, from zod's public description of it (`schema.def`, zod 4). */
const kindOf = (schema: z.ZodType) => (schema.def as { type: string }).type;
const isVoid = (schema: z.ZodType) => ['void', 'undefined', 'never'].includes(kindOf(schema));
const unwrapOptional = (field: z.ZodType) =>
  kindOf(field) === 'optional' ? (field as unknown as z.ZodOptional<z.ZodType>).unwrap() : field;

function refuse(procedure: string, why: string): never {
  throw new Error(`REST procedure ${procedure} cannot be served by rest-procedures.ts: ${why}`);
}

/** One procedure taken apart; throws when it has something this path would skip. */
function compileProcedure(procedure: string, route: ApiRoute): CompiledProcedure {
  const parts = procedureParts(procedure, procedures[procedure]);
  if (!parts.output) return refuse(procedure, 'no output schema');
  if (parts.inputs.length > 1) return refuse(procedure, 'several input schemas');
  if (parts.middlewares.length === 0) return refuse(procedure, 'not an authorProcedure: nothing admits the caller');
  let call: ProcedureRun;
  try {
    call = procedureCall(parts);
  } catch (err) {
    return refuse(procedure, (err as Error).message);
  }
  const input = parts.inputs[0];
  const arrayFields: string[] = [];
  const numberFields: string[] = [];
  const unwrapped = input && unwrapZodType(input, true);
  // Only a query carries text where the schema wants another type; a JSON body has its own types.
  const readsQuery = route.method === 'GET' || route.method === 'DELETE';
  if (unwrapped && instanceofZodTypeObject(unwrapped)) {
    const shape = (unwrapped as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
    for (const [key, field] of Object.entries(shape)) {
      const kind = kindOf(unwrapOptional(field));
      if (kind === 'array') arrayFields.push(key);
      else if (readsQuery && kind === 'number') numberFields.push(key);
      // The adapter would coerce these from query text as well; this path reads numbers only.
      else if (readsQuery && ['boolean', 'bigint', 'date'].includes(kind))
        return refuse(procedure, `query field ${key} is a ${kind}: only number fields are read from a query`);
    }
  }
  let serialize: CompiledProcedure['serialize'];
  if (isVoid(parts.output)) serialize = nothing;
  else {
    try {
      serialize = compileSerializer(parts.output);
    } catch (err) {
      return refuse(procedure, (err as Error).message);
    }
  }
  return {
    input,
    takesInput: input !== undefined && !isVoid(input),
    arrayFields,
    numberFields,
    call,
    serialize,
    rate: route.rate,
    status: route.success,
  };
}

/** The serializer of a `z.void()` output: a 204 has no body, and a handler returning one is our bug (500). */
function nothing(value: unknown): undefined {
  if (value !== undefined) throw new ResponseShapeError('response: expected no value');
  return undefined;
}

/** Every procedure route, taken apart at start-up. */
const PROCEDURES = new Map(
  API_ROUTES.flatMap((r) => (r.procedure ? [[r.procedure, compileProcedure(r.procedure, r)] as const] : [])),
);

/** Query parameters as the adapter reads them: a repeated key gives an array. */
function queryOf(search: string): Record<string, unknown> {
  const query: Record<string, string | string[]> = {};
  if (search === '') return query;
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * The raw input as trpc-to-openapi built it: the query (GET, DELETE) or the JSON body (the
 * other methods), then the path parameters over it, so a body field named like a path
 * parameter (`id`) never wins over the path. Path parameters are passed as the path has them:
 * every one of them is a UUID, which no percent-encoding can produce.
 */
function rawInput(proc: CompiledProcedure, call: ProcedureCall): unknown {
  if (!proc.takesInput) return undefined;
  const method = call.matched.route.method;
  if (method !== 'GET' && method !== 'DELETE') return { ...(call.body as object), ...call.matched.params };
  const raw = queryOf(call.query);
  for (const key of proc.arrayFields) if (raw[key] !== undefined && !Array.isArray(raw[key])) raw[key] = [raw[key]];
  for (const key of proc.numberFields) if (raw[key] !== undefined) raw[key] = integerQueryValue(raw[key]);
  return Object.assign(raw, call.matched.params);
}

/**
 * A number in a query string is a plain decimal integer (`limit=20`): what the document's
 * `type: integer` says on the wire. The adapter's coercion is `Number()`, which also reads
 * `1e1` (10), `0x10` (16), `5.0`, `+5` and ` 5`; those, and a leading zero, stay text here, so
 * the field's own schema refuses them with its own message, as it refuses `abc`.
 */
function integerQueryValue(value: unknown): unknown {
  return typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
}

/** tRPC's parse: synchronous unless the schema has asynchronous checks. */
async function parseInput(schema: z.ZodType, raw: unknown): Promise<unknown> {
  let parsed;
  try {
    parsed = schema.safeParse(raw);
  } catch {
    parsed = await schema.safeParseAsync(raw);
  }
  if (!parsed.success) throw invalid(describeZodError(parsed.error));
  return parsed.data;
}

/** One procedure call as rest-api.ts asks for it; a HEAD arrives here as its GET. */
export interface ProcedureCall {
  /** The route, matched once (api-path.ts `matchApiRoute`). */
  matched: MatchedRoute;
  /** The query string without its `?` (api-path.ts). */
  query: string;
  headers: RequestHeaders;
  /** The parsed JSON body (`{}` when empty) of a POST or PATCH; undefined otherwise. */
  body?: unknown;
  /** The caller, when identified before the body was read. */
  identified?: Authenticated;
}

/** Runs the procedure the matched route names; its outcome, failure included, lands in `outcome`. */
export async function runProcedure(parts: AppParts, call: ProcedureCall, outcome: ProcedureOutcome): Promise<void> {
  const proc = PROCEDURES.get(call.matched.route.procedure!)!;
  try {
    const raw = rawInput(proc, call);
    const ctx: ApiContext = { parts, headers: call.headers, res: outcome, identified: call.identified };
    const result = await proc.call(ctx, async () => (proc.input ? parseInput(proc.input, raw) : undefined));
    outcome.body = proc.serialize(result);
    outcome.statusCode = proc.status;
  } catch (err) {
    outcome.error = err;
  }
}
