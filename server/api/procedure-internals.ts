/**
 * The one place that reads tRPC's internals. tRPC 11 has no public API that lists a router's
 * procedures with their meta, input and output schemas, middlewares and resolver; the REST
 * mount (server/http/rest-procedures.ts) and the route table (routes.ts) need exactly that, as
 * trpc-to-openapi itself does. Everything read here is checked when it is read: an upgrade that
 * renames or reshapes one of these fields stops start-up with a message naming the field and
 * this file, never a TypeError somewhere later (tests/unit/api/procedure-internals.test.ts).
 *
 * Zod needs no adapter: `schema.def` is its public description of a schema (zod 4).
 */
import type { z } from 'zod';
import type { ApiMeta } from './route-meta';

/** A middleware as tRPC calls it; `next` hands the context on and returns what the rest returned. */
type ProcedureMiddleware = (opts: {
  ctx: unknown;
  meta: ApiMeta | undefined;
  path: string;
  type: 'query' | 'mutation';
  input: undefined;
  getRawInput: () => Promise<unknown>;
  signal: undefined;
  next: (opts?: { ctx?: unknown }) => Promise<unknown>;
}) => Promise<unknown>;

/** What defines one procedure, read once. */
export interface ProcedureParts {
  path: string;
  type: 'query' | 'mutation';
  meta: ApiMeta | undefined;
  /** The `.input()` schemas, in order. */
  inputs: z.ZodType[];
  output: z.ZodType | undefined;
  /** Middlewares added with `.use()`, in order; tRPC's own input, output and resolve steps left out. */
  middlewares: ProcedureMiddleware[];
  /** How many of them come after the input is parsed (`.input(...).use(...)`): they see the input. */
  middlewaresAfterInput: number;
  resolver: (opts: { ctx: never; input: unknown }) => Promise<unknown>;
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

/** `router._def.procedures`: the procedures by dotted path. */
export function procedureDefinitions(router: unknown): Record<string, unknown> {
  const procedures = isRecord(router) && isRecord(router._def) ? router._def.procedures : undefined;
  if (!isRecord(procedures)) throw new TrpcInternalsChanged('router._def.procedures is not an object');
  return procedures;
}

/** `procedure._def.meta`: the route meta (route-meta.ts), without taking the rest apart. */
export function procedureMeta(path: string, procedure: unknown): ApiMeta | undefined {
  return definition(path, procedure).meta as ApiMeta | undefined;
}

function definition(path: string, procedure: unknown): Record<string, unknown> {
  const def =
    isRecord(procedure) || typeof procedure === 'function' ? (procedure as { _def?: unknown })._def : undefined;
  if (!isRecord(def)) throw new TrpcInternalsChanged(`procedure ${path} has no _def`);
  return def;
}

/** `_type` marks tRPC's own steps: the input parser, the output check, the error formatter. */
const OWN_STEPS = new Set(['input', 'output', 'errors']);

/** One procedure taken apart. */
export function procedureParts(path: string, procedure: unknown): ProcedureParts {
  const def = definition(path, procedure);
  const { type, inputs, output, middlewares, resolver } = def;
  if (type !== 'query' && type !== 'mutation' && type !== 'subscription')
    throw new TrpcInternalsChanged(`procedure ${path}: _def.type is ${String(type)}`);
  if (!Array.isArray(inputs)) throw new TrpcInternalsChanged(`procedure ${path}: _def.inputs is not an array`);
  if (!Array.isArray(middlewares))
    throw new TrpcInternalsChanged(`procedure ${path}: _def.middlewares is not an array`);
  if (typeof resolver !== 'function')
    throw new TrpcInternalsChanged(`procedure ${path}: _def.resolver is not a function`);
  // The last middleware is tRPC's resolve step (createResolver); the resolver itself is run directly.
  const steps = middlewares.slice(0, -1);
  const isOwnStep = (m: unknown) => OWN_STEPS.has((m as { _type?: string })._type ?? '');
  const used = steps.filter((m) => !isOwnStep(m));
  const firstInput = steps.findIndex((m) => (m as { _type?: string })._type === 'input');
  const middlewaresAfterInput = firstInput < 0 ? 0 : steps.slice(firstInput).filter((m) => !isOwnStep(m)).length;
  if (middlewares.length === 0 || used.some((m) => typeof m !== 'function'))
    throw new TrpcInternalsChanged(`procedure ${path}: _def.middlewares does not end in the resolver`);
  if (type === 'subscription') throw new Error(`procedure ${path}: subscriptions have no REST route`);
  return {
    path,
    type,
    meta: def.meta as ApiMeta | undefined,
    inputs: inputs as z.ZodType[],
    output: output as z.ZodType | undefined,
    middlewares: used as ProcedureMiddleware[],
    middlewaresAfterInput,
    resolver: resolver as ProcedureParts['resolver'],
  };
}
