/**
 * The REST routes as data, derived from the procedures' meta (route-meta.ts) plus the one
 * route that is not a procedure (`POST /media`, multipart). Read by the REST mount (the route
 * match in server/http/api-path.ts, the procedures run by server/http/rest-procedures.ts:
 * success statuses, rate classes, conversion) and the OpenAPI post-processing (statuses,
 * headers, rate classes); nothing here is written twice.
 */
import { UPLOAD_ROUTE } from './openapi/media';
import { appRouter } from './root';
import type { RouteFacts } from './route-meta';
import { procedureDefinitions, procedureMeta } from './procedure-internals';

export interface ApiRoute extends RouteFacts {
  /** The tRPC procedure path (`posts.create`); absent for the hand-written upload route. */
  procedure?: string;
}

function procedureRoutes(): ApiRoute[] {
  return Object.entries(procedureDefinitions(appRouter)).map(([procedure, definition]) => {
    const meta = procedureMeta(procedure, definition);
    if (!meta?.route) throw new Error(`REST procedure ${procedure} has no route meta`);
    return { procedure, ...meta.route };
  });
}

export const API_ROUTES: readonly ApiRoute[] = [...procedureRoutes(), UPLOAD_ROUTE];
