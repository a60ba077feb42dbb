import type { ServerResponse } from 'node:http';
import { API_PREFIX, apiPath, apiRouteTemplate, isApiPath } from './api-path';
import { canonicalSegment } from './public-page';
import { isUuid, UUID_SOURCE } from '../foundation/uuid';

/**
 * The route template of a request, for metric labels: a small, fixed set of values whatever
 * the paths clients send. Only routes the service has become labels; ids, slugs and any path it
 * does not know become `*` (unknown console words once each made a new series).
 */
const FIXED = new Set([
  '/',
  '/api/health',
  '/api/metrics',
  '/favicon.ico',
  '/api/reader-events',
  '/api/operator/openapi.json',
]);

/** The REST routes that are not procedures, below the prefix. */
const API_FIXED = new Set(['/openapi.json', '/media']);

/**
 * The console's pages and route handlers (app/console/**), `{id}` for a dynamic segment; a unit
 * test keeps this list equal to the files under app/console.
 */
export const CONSOLE_ROUTES: readonly string[] = [
  '/console',
  '/console/account',
  '/console/api-guide',
  '/console/api-reference',
  '/console/articles/new',
  '/console/articles/{id}',
  '/console/articles/{id}/markdown',
  '/console/media',
  '/console/media/upload',
  '/console/moderation',
  '/console/preview/live',
  '/console/preview/{id}',
  '/console/preview/{id}/changes',
  '/console/preview/{id}/history',
  '/console/preview/{id}/side-by-side',
];
const CONSOLE_ROUTE_SET = new Set(CONSOLE_ROUTES);

const UUID_ANYWHERE = new RegExp(UUID_SOURCE, 'g');

/** The path with every id masked as `{id}`: what logs show, so they group by route and carry no id. */
export function maskIds(pathname: string): string {
  return pathname.replace(UUID_ANYWHERE, '{id}');
}

/**
 * The route the REST handler matched for a response (rest-api.ts notes it when it matches): the
 * request's label comes from that one match instead of a second one here.
 */
const matchedRoutes = new WeakMap<ServerResponse, string>();

export function noteMatchedRoute(res: ServerResponse, template: string): void {
  matchedRoutes.set(res, template);
}

/** The label of a finished request: the route matched for it, or the template of its path. */
export function requestRoute(res: ServerResponse, method: string, pathname: string): string {
  return matchedRoutes.get(res) ?? routeTemplate(method, pathname);
}

export function routeTemplate(method: string, pathname: string): string {
  if (FIXED.has(pathname)) return pathname;
  // A REST path no procedure took (a refusal before any route, /openapi.json, /media).
  if (isApiPath(pathname)) return apiTemplate(method, pathname);
  if (pathname.startsWith('/api/media/')) return '/api/media/{id}';
  if (pathname.startsWith('/api/reader/')) return '/api/reader/{public_id}/{kind}';
  if (pathname.startsWith('/_next/')) return '/_next/*';
  if (pathname === '/console' || pathname.startsWith('/console/')) {
    const template = pathname
      .replace(/\/$/, '')
      .split('/')
      .map((p) => (isUuid(p) ? '{id}' : p))
      .join('/');
    return CONSOLE_ROUTE_SET.has(template) ? template : '/console/*';
  }
  if (canonicalSegment(pathname) !== null) return '/{slug}-{public_id}';
  return 'other';
}

/** The routed form (api-path.ts), as the REST handler reads it: a refused form is `*` too. */
function apiTemplate(method: string, pathname: string): string {
  const routed = apiPath(pathname);
  if (routed && API_FIXED.has(routed.path)) return API_PREFIX + routed.path;
  return (routed && apiRouteTemplate(method, routed.path)) ?? `${API_PREFIX}/*`;
}
