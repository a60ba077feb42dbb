/**
 * The one file that depends on tRPC's internals (@trpc/server 11): the REST mount
 * (server/http/rest-procedures.ts) runs the procedures of root.ts itself, and the route table
 * (routes.ts) lists them with their meta; tRPC has no public API for either.
 *
 * Why not tRPC's public API (`createCaller`, `callTRPCProcedure`, trpc-to-openapi's handler):
 * measured in process for the same procedures, middlewares, input and JSON out
 * (bench/procedure-dispatch.ts; figures in docs/architecture.md, "The REST mount's own code"),
 * a read through `createCaller` or `callTRPCProcedure` costs about 30 µs of CPU more than
 * through this file's `procedureCall` (GET /me, GET /posts/{id}; 80 µs for a page of 20):
 * about a quarter of such a read's CPU in the service under load, where this dispatch costs
 * 2–4 µs. Most of it is tRPC's chain itself (its build copies each step's options and the
 * context with an object-spread helper, key by key), the rest zod parsing the output the
 * compiled serializer checks anyway.
 *
 * What is read, from `_def` (@trpc/server src/unstable-core-do-not-import: router.ts,
 * procedureBuilder.ts, middleware.ts):
 * - `router._def.procedures`: every procedure by dotted path, `_def.lazy` empty (a lazy
 *   router's procedures are not listed until it is loaded);
 * - `procedure._def`: `type`, `meta`, `inputs` (the schemas of `.input()`), `output` (of
 *   `.output()`), `resolver` (the function given to `.query()`/`.mutation()`);
 * - `procedure._def.middlewares`, the chain tRPC runs, in order: the `.use()` functions; tRPC's
 *   own steps, marked by a `_type` property: 'input' (one per `.input()`: parses the raw input),
 *   'output' (`.output()`: parses the result), 'errors' (`.errors()`: formats failures); and
 *   last, the step `createResolver` appends, which calls the resolver: unmarked, recognised by
 *   its function name `resolveMiddleware` (kept by our build: esbuild does not minify).
 *
 * What is copied, from `callRecursive` (procedureBuilder.ts), for the `.use()` middlewares:
 * each is called with `{ ctx, meta, path, type, input, getRawInput, signal, batchIndex, next }`;
 * `next({ ctx })` runs the rest with `{ ...ctx, ...overrides }` and resolves to
 * `{ ok: true, data }` or, when the rest threw, `{ ok: false, error }`, never rejecting; a
 * middleware's `{ ok: false }` result is thrown. Then the input steps (here: the caller's
 * `parse`, after every middleware) and the resolve step (the resolver, with the same options).
 *
 * What differs, on purpose: the input is parsed after the middlewares, so a `.use()` after
 * `.input()` is refused (it would see no input); the output is not parsed (the REST mount
 * writes it with a serializer compiled from `output`, held to zod's output by its tests); a
 * failure reaches the caller as thrown, not wrapped in a TRPCError; a middleware that returns
 * without calling `next()` is an error (tRPC would answer with what it returned); a middleware
 * reading the raw input gets an error (ours never do).
 *
 * Every assumption above is checked when a procedure is read, and a broken one stops start-up
 * with `TrpcInternalsChanged` naming it and this file: tests/unit/api/procedure-internals.test.ts
 * breaks each in turn, and runs procedures through tRPC's `createCaller` and through `procedureCall`
 * to compare; tests/domain/procedure-dispatch.test.ts does so for appRouter's own, on PostgreSQL.
 *
 * Zod needs no adapter: `schema.def` is its public description of a schema (zod 4).
 */
import type { z } from 'zod';
import type { ApiMeta } from './route-meta';

/** The options tRPC gives a middleware (`callRecursive`); `next` hands the context on and returns what the rest returned. */
interface MiddlewareOptions {
  ctx: unknown;
  meta: ApiMeta | undefined;
  path: string;
  type: 'query' | 'mutation';
  input: undefined;
  getRawInput: () => Promise<unknown>;
  signal: undefined;
  batchIndex: number;
  next: (opts?: { ctx?: unknown }) => Promise<MiddlewareResult>;
}
type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: unknown };
type ProcedureMiddleware = (opts: MiddlewareOptions) => Promise<unknown>;
type Resolver = (
  opts: Omit<MiddlewareOptions, 'next' | 'input' | 'ctx'> & { ctx: never; input: unknown },
) => Promise<unknown>;

/** What defines one procedure, read once. */
export interface ProcedureParts {
  path: string;
  type: 'query' | 'mutation';
  meta: ApiMeta | undefined;
  /** The `.input()` schemas, in order. */
  inputs: z.ZodType[];
  output: z.ZodType | undefined;
  /** Middlewares added with `.use()`, in order; tRPC's own input, output, errors and resolve steps left out. */
  middlewares: ProcedureMiddleware[];
  /** How many of them come after the input is parsed (`.input(...).use(...)`): they see the input. */
  middlewaresAfterInput: number;
  /** `.errors()` formatters: they only shape tRPC's own error responses. */
  errorFormatters: number;
  resolver: Resolver;
}

export class TrpcInternalsChanged extends Error {
  override name = 'TrpcInternalsChanged';
  constructor(what: string) {
    super(
      `tRPC's internals changed: ${what}. server/api/procedure-internals.ts reads them for the REST mount; ` +
        'update it for the installed @trpc/server before starting.',
    );
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isSchema = (value: unknown) => isRecord(value) && typeof value.safeParse === 'function';

/** `router._def.procedures`: the procedures by dotted path. */
export function procedureDefinitions(router: unknown): Record<string, unknown> {
  const def = isRecord(router) && isRecord(router._def) ? router._def : {};
  const { procedures, lazy } = def;
  if (!isRecord(procedures)) throw new TrpcInternalsChanged('router._def.procedures is not an object');
  const pending = isRecord(lazy) ? Object.keys(lazy) : [];
  if (pending.length > 0)
    throw new TrpcInternalsChanged(`router._def.lazy holds routers not loaded yet (${pending.join(', ')})`);
  return procedures;
}

/** `procedure._def.meta`: the route meta (route-meta.ts), without taking the rest apart. */
export function procedureMeta(path: string, procedure: unknown): ApiMeta | undefined {
  const { meta } = definition(path, procedure);
  if (meta !== undefined && !isRecord(meta))
    throw new TrpcInternalsChanged(`procedure ${path}: _def.meta is not an object`);
  return meta as ApiMeta | undefined;
}

function definition(path: string, procedure: unknown): Record<string, unknown> {
  const def =
    isRecord(procedure) || typeof procedure === 'function' ? (procedure as { _def?: unknown })._def : undefined;
  if (!isRecord(def)) throw new TrpcInternalsChanged(`procedure ${path} has no _def`);
  return def;
}

/** The `_type` marks of tRPC's own steps (middleware.ts `createInputMiddleware`, …). */
const OWN_STEPS = ['input', 'output', 'errors'] as const;
type OwnStep = (typeof OWN_STEPS)[number];
/** The name of the step `createResolver` (procedureBuilder.ts) appends to call the resolver. */
const RESOLVE_STEP = 'resolveMiddleware';

/** One procedure taken apart, every assumption about its `_def` checked. */
export function procedureParts(path: string, procedure: unknown): ProcedureParts {
  const def = definition(path, procedure);
  const changed = (what: string) => new TrpcInternalsChanged(`procedure ${path}: ${what}`);
  const { type, inputs, output, middlewares, resolver } = def;
  const meta = procedureMeta(path, procedure);
  if (type !== 'query' && type !== 'mutation' && type !== 'subscription') throw changed(`_def.type is ${String(type)}`);
  if (!Array.isArray(inputs)) throw changed('_def.inputs is not an array');
  if (!inputs.every(isSchema)) throw changed('_def.inputs holds something that is not a schema');
  if (output !== undefined && !isSchema(output)) throw changed('_def.output is not a schema');
  if (typeof resolver !== 'function') throw changed('_def.resolver is not a function');
  if (!Array.isArray(middlewares) || middlewares.length === 0)
    throw changed('_def.middlewares is not a non-empty array');
  if (!middlewares.every((m) => typeof m === 'function'))
    throw changed('_def.middlewares holds something that is not a function');

  const steps = middlewares as (ProcedureMiddleware & { _type?: unknown })[];
  const marks = steps.map((m) => m._type);
  const unknownMark = marks.find((mark) => mark !== undefined && !OWN_STEPS.includes(mark as OwnStep));
  if (unknownMark !== undefined) throw changed(`_def.middlewares has a step marked _type "${String(unknownMark)}"`);
  const count = (mark: OwnStep) => marks.filter((m) => m === mark).length;
  if (count('input') !== inputs.length)
    throw changed(`_def.middlewares has ${count('input')} "input" steps for ${inputs.length} _def.inputs`);
  if (count('output') !== (output === undefined ? 0 : 1))
    throw changed(
      `_def.middlewares has ${count('output')} "output" steps for ${output === undefined ? 'no' : 'one'} _def.output`,
    );
  const resolveAt = steps.flatMap((m, i) => (m.name === RESOLVE_STEP && m._type === undefined ? [i] : []));
  if (resolveAt.length !== 1 || resolveAt[0] !== steps.length - 1)
    throw changed(
      `_def.middlewares does not end in the resolve step (${RESOLVE_STEP} found at ${
        resolveAt.length === 0 ? 'no position' : `position ${resolveAt.join(', ')}`
      } of ${steps.length})`,
    );

  if (type === 'subscription') throw new Error(`procedure ${path}: subscriptions have no REST route`);
  if (def.experimental_caller)
    throw new Error(`procedure ${path}: an experimental_caller wraps it; it cannot be run here`);
  const chain = steps.slice(0, -1);
  const used = chain.filter((m) => m._type === undefined);
  const firstInput = marks.indexOf('input');
  return {
    path,
    type,
    meta,
    inputs: inputs as z.ZodType[],
    output: output as z.ZodType | undefined,
    middlewares: used,
    middlewaresAfterInput: firstInput < 0 ? 0 : chain.slice(firstInput).filter((m) => m._type === undefined).length,
    errorFormatters: count('errors'),
    resolver: resolver as Resolver,
  };
}

/** Runs a procedure from `context`: its middlewares, `input()` (the parsed input), its resolver. */
export type ProcedureRun = (context: object, input: () => Promise<unknown>) => Promise<unknown>;

/**
 * The procedure as tRPC's `callRecursive` runs it (see the file's header), without tRPC's input
 * and output steps: the `.use()` middlewares around `input()` and the resolver. Refused here: a
 * middleware after `.input()` (it would see no input) and an `.errors()` formatter (its shapes
 * are tRPC's responses', which the REST mount does not write).
 */
export function procedureCall(parts: ProcedureParts): ProcedureRun {
  const { middlewares, meta, path, type, resolver } = parts;
  if (parts.middlewaresAfterInput > 0)
    throw new Error(`procedure ${path}: a middleware after .input() would see no input`);
  if (parts.errorFormatters > 0) throw new Error(`procedure ${path}: .errors() formatters are not run for REST`);
  const getRawInput = () => Promise.reject(new Error(`middleware of ${path} reads the raw input before it is parsed`));
  return (context, input) => {
    const step = async (i: number, ctx: unknown): Promise<unknown> => {
      if (i === middlewares.length)
        return resolver({
          ctx: ctx as never,
          input: await input(),
          meta,
          path,
          type,
          getRawInput,
          signal: undefined,
          batchIndex: 0,
        });
      let passed = false;
      const result = (await middlewares[i]!({
        ctx,
        meta,
        path,
        type,
        input: undefined,
        getRawInput,
        signal: undefined,
        batchIndex: 0,
        next: async (opts) => {
          passed = true;
          const merged = opts?.ctx ? { ...(ctx as object), ...(opts.ctx as object) } : ctx;
          try {
            return { ok: true, data: await step(i + 1, merged) };
          } catch (error) {
            return { ok: false, error };
          }
        },
      })) as MiddlewareResult;
      if (!passed) throw new Error(`middleware of ${path} returned without calling next()`);
      if (!result.ok) throw result.error;
      return result.data;
    };
    return step(0, context);
  };
}
