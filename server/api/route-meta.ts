/**
 * Everything a REST route is, said once, in its procedure's meta: method and path (read by
 * trpc-to-openapi), success status, rate class, the error statuses it documents and whether it
 * takes part in conditional requests. The rate middleware, the REST mount's route match and success status
 * and the OpenAPI post-processing all read it from here (see `apiRoutes` in routes.ts), so
 * adding a route means writing its router entry, its schema and its handler, nothing else.
 */
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { RateClass } from '../model/rate-classes';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type SuccessStatus = 200 | 201 | 204;
/** Error statuses a route may document; each has one description in openapi/error-text.ts. */
export type ErrorStatus = 400 | 401 | 404 | 409 | 412 | 422 | 429 | 503;

export interface RouteFacts {
  method: HttpMethod;
  /** Relative to /api/v1/author, with `{param}` placeholders. */
  path: `/${string}`;
  success: SuccessStatus;
  rate: RateClass;
  errors: readonly ErrorStatus[];
  /**
   * Conditional requests on articles, beyond the contract and opt-in: `etag` — the success
   * carries the article's ETag; `read` — `If-None-Match` may answer 304; `write` — `If-Match`
   * may answer 412.
   */
  conditional?: { etag: boolean; read?: boolean; write?: boolean };
  /** The route converts Markdown: refused with 503 before its body is read while the account's conversion queue is full. */
  converts?: boolean;
}

export type ApiMeta = OpenApiMeta & { route?: RouteFacts };

interface RouteDefinition extends Omit<RouteFacts, 'success'> {
  success?: SuccessStatus;
  tags: string[];
  summary: string;
  description?: string;
}

/** The meta of one REST procedure: `.meta(route({ method, path, rate, errors, … }))`. */
export function route(definition: RouteDefinition): ApiMeta {
  const { tags, summary, description, success = 200, ...facts } = definition;
  return {
    openapi: {
      method: facts.method,
      path: facts.path,
      tags,
      summary,
      ...(description ? { description } : {}),
      errorResponses: [...facts.errors],
    },
    route: { ...facts, success },
  };
}
