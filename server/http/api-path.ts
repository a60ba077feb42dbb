/**
 * The one reading of a REST path (`/api/v1/author/...`). Every decision taken about a request
 * (the early 404, the conversion-queue refusal, the metrics label, and the procedure run) reads
 * the path this module gives, so they cannot disagree.
 *
 * Why refuse some forms: the WHATWG URL parser (fetch clients, proxies, caches) turns `\` into
 * `/`, resolves `.` and `..` segments (`%2e` included) and drops what follows `#`, while this
 * module reads the raw text. `POST /posts/x\..#/unpublish` is an unpublish to one reading and a
 * create to the other; a cache in front would purge or key it as one and the service run the
 * other. A path in any of these forms is therefore refused with 400 before anything else
 * (docs/api.md, Requests); every other path reads the same to both parsers.
 *
 * One rule for a trailing slash on every route: a single one is ignored (`/posts/` is `/posts`,
 * `POST /media/` is the upload), as trpc-to-openapi already did for the procedures.
 */
import { API_ROUTES, type ApiRoute } from '../api/routes';

export const API_PREFIX = '/api/v1/author';

/** True when the path is on the REST surface; the request is then answered by rest-api.ts. */
export function isApiPath(pathname: string): boolean {
  return pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`);
}

export interface ApiPath {
  /** Below the prefix, without a trailing slash: `/posts/{id}`; '' for the prefix itself. */
  path: string;
  /** The query string without its `?`, or ''. */
  query: string;
}

/** The 400 message for a refused form; documented in docs/api.md (Requests). */
export const ODD_PATH_MESSAGE = 'path: must not contain "\\", "#", "//", or "." and ".." segments';

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The routed form of a request target on the REST surface (`url` is `req.url`, query allowed),
 * or null when it has a form that parsers read differently (see above).
 */
export function apiPath(url: string): ApiPath | null {
  if (url.includes('#')) return null;
  const mark = url.indexOf('?');
  const pathname = mark === -1 ? url : url.slice(0, mark);
  if (!isApiPath(pathname) || pathname.includes('\\') || pathname.includes('//')) return null;
  let path = pathname.slice(API_PREFIX.length);
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) return null;
  if (path.endsWith('/')) path = path.slice(0, -1);
  return { path, query: mark === -1 ? '' : url.slice(mark + 1) };
}

/**
 * A route's path as an exact pattern: literal segments as written (case-sensitive: `/ME` is not
 * `/me`, so no second spelling of a route exists), each `{param}` one segment.
 */
function exactPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return param ? `(?<${param[1]}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Method, path pattern and template of every procedure (api/routes.ts): known before any body is read. */
const PROCEDURE_ROUTES = API_ROUTES.filter((r) => r.procedure).map((route) => ({
  route,
  pattern: exactPattern(route.path),
  template: API_PREFIX + route.path,
}));

export interface MatchedRoute {
  route: ApiRoute;
  /** `/api/v1/author/posts/{id}`. */
  template: string;
  /** The `{param}` segments by name, as the path has them (not decoded, as trpc-to-openapi passed them). */
  params: Record<string, string>;
}

/**
 * The one route match of a routed path (`apiPath(...).path`): the procedure route it names,
 * if any. A HEAD is a GET without its body (rest-api.ts), so it matches the GET's route.
 */
export function matchApiRoute(method: string, path: string): MatchedRoute | undefined {
  const asked = method === 'HEAD' ? 'GET' : method;
  for (const { route, pattern, template } of PROCEDURE_ROUTES) {
    if (route.method !== asked) continue;
    const found = pattern.exec(path);
    if (found) return { route, template, params: { ...found.groups } };
  }
  return undefined;
}

/** The route template (`/api/v1/author/posts/{id}`) a routed path matches, if any. */
export function apiRouteTemplate(method: string, path: string): string | undefined {
  return matchApiRoute(method, path)?.template;
}
