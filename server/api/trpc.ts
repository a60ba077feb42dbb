/**
 * tRPC setup for the REST surface (create-t3-app style, one file):
 * 1. the context every procedure sees (the HTTP layer creates it: server/http/rest-procedures.ts),
 * 2. the error formatter (kept minimal: the REST mount writes the contract error bodies itself),
 * 3. the procedure builder `authorProcedure`: Bearer dp_live_ token → account, plus one unit of
 *    the account's minute window for the rate class its route meta names (429 when used up).
 */
import { initTRPC } from '@trpc/server';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requestScope, statements, type RequestScope, type StatementRunner } from '../runtime';
import type { Authenticated } from '../services/tokens';
import { admit, type RequestHeaders } from './authenticate';
import type { ApiMeta } from './route-meta';
import type { LimitWindow } from '../errors';
import type { RateClass } from '../services/rate-classes';

// 1. Context -----------------------------------------------------------------------------

/** What a procedure may add to its response; the transport writes it, on success and on failure. */
interface ResponseSink {
  setHeader(name: string, value: string | string[]): void;
  /** The minute window this request was charged to (the transport writes RateLimit-* from it). */
  chargedTo(window: LimitWindow): void;
}

export interface ApiContext {
  /** Request headers; the body, if any, has already been read and parsed. */
  headers: RequestHeaders;
  /** Headers written here reach the response, errors included. */
  res: ResponseSink;
  /** The caller, when the HTTP layer had to identify them before reading the body. */
  identified?: Authenticated;
}

// 2. Init ----------------------------------------------------------------------------------

const t = initTRPC.context<ApiContext>().meta<ApiMeta>().create();

export const router = t.router;

// 3. Procedures ------------------------------------------------------------------------------

export type AuthorContext = ApiContext & {
  auth: Authenticated;
  /** Prepared statements for reads (db/statements.ts). */
  db: StatementRunner;
  /** A request-scoped EntityManager, in mutations (queries use `db`). */
  em: EntityManager;
  /** In mutations: the write and media dependencies on `em` (server/runtime.ts). */
  scope: RequestScope;
};

/**
 * Queries read through prepared statements (`ctx.db`) and get no EntityManager: forking one
 * costs more than a whole cached read. This stand-in says so if a query ever reaches for it.
 */
const mutationsOnly = <T extends object>(what: string) =>
  new Proxy({} as T, {
    get() {
      throw new Error(`queries read through ctx.db; ctx.${what} exists in mutations only`);
    },
  });
const NO_ENTITY_MANAGER = mutationsOnly<EntityManager>('em');
const NO_SCOPE = mutationsOnly<RequestScope>('scope');

/**
 * The context of a query: the caller admitted to one unit of `cls`, and the statement runner.
 * Used by `authorProcedure` and by the REST mount (server/http/rest-procedures.ts), which runs
 * procedures without the tRPC call machinery.
 */
export async function queryContext(ctx: ApiContext, cls: RateClass): Promise<AuthorContext> {
  const { auth, window } = await admit(ctx.headers, cls, ctx.identified);
  ctx.res.chargedTo(window);
  return { ...ctx, auth, db: statements(), em: NO_ENTITY_MANAGER, scope: NO_SCOPE };
}

/**
 * The context of a mutation: the caller admitted and charged as for a query, plus the
 * request's own EntityManager and the write context built on it (`requestScope`). Like
 * `authorProcedure`'s middleware, which runs before the procedure's `.input()` schema, both
 * contexts are made before the input is parsed: a refused input still costs a unit and carries
 * RateLimit-* (the REST mount keeps that order).
 */
export async function mutationContext(ctx: ApiContext, cls: RateClass): Promise<AuthorContext> {
  const { auth, window } = await admit(ctx.headers, cls, ctx.identified);
  ctx.res.chargedTo(window);
  const scope = await requestScope(auth);
  return { ...ctx, auth, db: statements(), em: scope.em, scope };
}

/** An author's procedure, charged to the rate class of its route meta (docs/api.md "Authentication", "Rate limits"). */
export const authorProcedure = t.procedure.use(async ({ ctx, type, meta, path, next }) => {
  const cls = meta?.route?.rate;
  if (!cls) throw new Error(`procedure ${path} has no route meta: declare it with route({...})`);
  return next({ ctx: await (type === 'mutation' ? mutationContext : queryContext)(ctx, cls) });
});
