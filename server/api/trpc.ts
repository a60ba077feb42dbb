/**
 * tRPC setup for the REST surface (create-t3-app style, one file):
 * 1. the context every procedure sees (the HTTP layer creates it: server/http/rest-api.ts),
 * 2. the error formatter (kept minimal: the REST mount writes the contract error bodies itself),
 * 3. the procedure builder `authorProcedure`: Bearer dp_live_ token → account, plus one unit of
 *    the account's minute window for the rate class its route meta names (RateLimit-* headers, 429).
 */
import { initTRPC } from '@trpc/server';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getOrm } from '../../db/orm';
import { statements, type StatementRunner } from '../../db/statements';
import type { Authenticated } from '../services/tokens';
import { admit, type RequestHeaders } from './authenticate';
import type { ApiMeta } from './route-meta';

// 1. Context -----------------------------------------------------------------------------

interface ResponseHeaderSink {
  setHeader(name: string, value: string | string[]): void;
}

export interface ApiContext {
  /** Request headers; the body, if any, has already been read and parsed. */
  headers: RequestHeaders;
  /** Headers written here reach the response, errors included. */
  res: ResponseHeaderSink;
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
};

/**
 * Queries read through prepared statements (`ctx.db`) and get no EntityManager: forking one
 * costs more than a whole cached read. This stand-in says so if a query ever reaches for it.
 */
const NO_ENTITY_MANAGER = new Proxy({} as EntityManager, {
  get() {
    throw new Error('queries read through ctx.db; ctx.em exists in mutations only');
  },
});

/** An author's procedure, charged to the rate class of its route meta (docs/api.md "Authentication", "Rate limits"). */
export const authorProcedure = t.procedure.use(async ({ ctx, type, meta, path, next }) => {
  const cls = meta?.route?.rate;
  if (!cls) throw new Error(`procedure ${path} has no route meta: declare it with route({...})`);
  const auth = await admit(ctx.headers, cls, (name, value) => ctx.res.setHeader(name, value), ctx.identified);
  const em = type === 'mutation' ? ((await getOrm()).em.fork() as unknown as EntityManager) : NO_ENTITY_MANAGER;
  return next({ ctx: { ...ctx, auth, db: statements(), em } });
});
