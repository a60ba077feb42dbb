/**
 * tRPC setup for the REST surface (create-t3-app style, one file):
 * 1. the context every procedure sees (the HTTP layer creates it: server/http/rest-procedures.ts),
 * 2. tRPC's init, with the route meta every procedure carries (route-meta.ts),
 * 3. the procedure builders `authorProcedure`: Bearer dp_live_ token → account, plus one unit of
 *    the account's minute window for the rate class its route meta names (429 when used up); and
 *    `authorReadFirstProcedure`, the same admission made by the procedure's first statement, a
 *    read (the three reads, and PATCH's read of the article it edits).
 */
import { initTRPC } from '@trpc/server';
import type { AppParts } from '../runtime/parts';
import type { Authenticated } from '../model/account';
import { admit, admitAndRead, type RequestHeaders } from '../admission/admit';
import type { AdmittedRead } from '../admission/admitted-statement';
import type { ApiMeta } from './route-meta';
import type { LimitWindow } from '../foundation/errors';
import type { RateClass } from '../model/rate-classes';

// 1. Context -----------------------------------------------------------------------------

/** What a procedure may add to its response; the transport writes it, on success and on failure. */
interface ResponseSink {
  setHeader(name: string, value: string | string[]): void;
  /** The minute window this request was charged to (the transport writes RateLimit-* from it). */
  chargedTo(window: LimitWindow): void;
}

export interface ApiContext {
  /** The process's parts (runtime/parts.ts), handed in by the transport. */
  parts: AppParts;
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

/**
 * An `authorProcedure`'s context: the admitted caller. Its writes build their context from
 * `parts` (runtime/request-contexts.ts `writeContextOf`, `publishingOf`, `mediaDepsOf`); reads
 * are `authorReadFirstProcedure`s, admitted by their own read (`ctx.admitAndRead`).
 */
export type AuthorContext = ApiContext & { auth: Authenticated };

/**
 * The context of every author procedure: the caller admitted to one unit of `cls` (token and
 * charge in one round trip), before the input is parsed, so a refused input still costs a unit
 * and carries RateLimit-*. `authorProcedure`'s middleware; the REST mount
 * (server/http/rest-procedures.ts) runs that middleware like tRPC does, without tRPC's caller.
 */
async function authorContext(ctx: ApiContext, cls: RateClass): Promise<AuthorContext> {
  const { auth, window } = await admit(ctx.parts.db, ctx.headers, cls, ctx.identified);
  ctx.res.chargedTo(window);
  return { ...ctx, auth };
}

/** An author's procedure, charged to the rate class of its route meta (docs/api.md "Authentication", "Rate limits"). */
export const authorProcedure = t.procedure.use(async ({ ctx, meta, path, next }) => {
  const cls = meta?.route?.rate;
  if (!cls) throw new Error(`procedure ${path} has no route meta: declare it with route({...})`);
  return next({ ctx: await authorContext(ctx, cls) });
});

/** Admits the caller with `read` (server/admission/admit.ts `admitAndRead`): the caller and what the read found. */
type AdmitAndRead = <Row>(read: AdmittedRead<Row>) => Promise<{ auth: Authenticated; rows: Row[] }>;

export type AuthorReadFirstContext = ApiContext & { admitAndRead: AdmitAndRead };

/**
 * An author's procedure whose first statement is a read: the handler admits its caller with that
 * read (`ctx.admitAndRead`, which it calls itself and hands no one), so token, charge and read
 * cost one round trip, shared with the other callers' requests of the same read. The
 * answers are `authorProcedure`'s: a request its handler did not admit (the input was refused
 * first, or the handler failed before reading) is admitted after it, so a bad token is still a
 * 401 and a refused input is still charged one unit.
 */
export const authorReadFirstProcedure = t.procedure.use(async ({ ctx, meta, path, next }) => {
  const cls = meta?.route?.rate;
  if (!cls) throw new Error(`procedure ${path} has no route meta: declare it with route({...})`);
  let admitted = false;
  const admitAndReadOnce: AdmitAndRead = async (read) => {
    if (admitted) throw new Error(`procedure ${path} admits its caller twice`);
    admitted = true;
    const { auth, window, rows } = await admitAndRead(ctx.parts.db, ctx.headers, cls, read);
    ctx.res.chargedTo(window);
    return { auth, rows };
  };
  const result = await next({ ctx: { ...ctx, admitAndRead: admitAndReadOnce } });
  if (!admitted) await authorContext(ctx, cls);
  return result;
});
