/**
 * The REST routes as data, derived from the procedures' meta (route-meta.ts) plus the one
 * route that is not a procedure (`POST /media`, multipart). Read by the REST adapter (success
 * statuses) and the OpenAPI post-processing (statuses, headers, rate classes); nothing here is
 * written twice.
 */
import { UPLOAD_ROUTE } from './openapi/media';
import { appRouter } from './root';
import type { ApiMeta, RouteFacts } from './route-meta';

export interface ApiRoute extends RouteFacts {
  /** The tRPC procedure path (`posts.create`); absent for the hand-written upload route. */
  procedure?: string;
}

function procedureRoutes(): ApiRoute[] {
  return Object.entries(appRouter._def.procedures).map(([procedure, definition]) => {
    const meta = (definition as unknown as { _def: { meta?: ApiMeta } })._def.meta;
    if (!meta?.route) throw new Error(`REST procedure ${procedure} has no route meta`);
    return { procedure, ...meta.route };
  });
}

export const API_ROUTES: readonly ApiRoute[] = [...procedureRoutes(), UPLOAD_ROUTE];

const SUCCESS_BY_PROCEDURE = new Map(API_ROUTES.flatMap((r) => (r.procedure ? [[r.procedure, r.success]] : [])));

const CONVERTING = new Set(API_ROUTES.filter((r) => r.converts).map((r) => `${r.method} ${r.path}`));

/** Whether a route (method and path template relative to /api/v1/author) converts Markdown. */
export function routeConverts(method: string, template: string): boolean {
  return CONVERTING.has(`${method} ${template}`);
}

/** The status a successful call of this procedure answers with (201 for a create, 204 with no body). */
export function successStatus(procedure: string): RouteFacts['success'] | undefined {
  return SUCCESS_BY_PROCEDURE.get(procedure);
}
