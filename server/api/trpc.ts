/**
 * tRPC setup for the REST surface (create-t3-app style, one file):
 * 1. the context every procedure sees,
 * 2. the error formatter that stashes the SPEC error body for the REST adapter,
 * 3. the procedure builders: `authorProcedure` (Bearer dp_live_ token → account) and
 *    `rated(class)` (per-account minute windows, RateLimit-* headers).
 */
import { initTRPC } from '@trpc/server';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { RateClass } from '../services/limits';
import type { Authenticated } from '../services/tokens';
import { authenticateRequest } from './authenticate';
import { chargeRateClass } from './rate-class';
import { toApiError } from './errors';

// 1. Context -----------------------------------------------------------------------------

export interface ResponseHeaderSink {
  setHeader(name: string, value: string | string[]): void;
}

export interface ApiContext {
  /** Request headers (fetch Headers); the body has already been read by the adapter. */
  headers: Headers;
  /** Headers written here reach the response, errors included (trpc-to-openapi fetch shim). */
  res: ResponseHeaderSink;
}

export function createApiContext(opts: { req: { headers: Headers }; res: ResponseHeaderSink }): ApiContext {
  return { headers: opts.req.headers, res: opts.res };
}

// 2. Init and error shape -------------------------------------------------------------------

const t = initTRPC
  .context<ApiContext>()
  .meta<OpenApiMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const api = toApiError(error);
      return { ...shape, data: { ...shape.data, api: { status: api.status, body: api.toBody() } } };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;

// 3. Procedures ------------------------------------------------------------------------------

export const authorProcedure = t.procedure.use(async ({ ctx, next }) => {
  const { em, auth } = await authenticateRequest(ctx.headers);
  return next({ ctx: { ...ctx, em, auth } });
});

export type AuthorContext = ApiContext & { em: EntityManager; auth: Authenticated };

/** Consumes one unit of the account's minute window for `cls` (SPEC "Limits"). */
export function rated(cls: RateClass) {
  return authorProcedure.use(async ({ ctx, next }) => {
    await chargeRateClass(ctx.em, ctx.auth.account, cls, (name, value) => ctx.res.setHeader(name, value));
    return next();
  });
}
