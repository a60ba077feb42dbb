import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { checkHealth } from '../runtime/health';
import type { AppParts } from '../runtime/parts';
import { logLine, logRequest } from '../foundation/log';
import { countRequest } from '../foundation/metrics';
import { notFound } from '../foundation/errors';
import { takeMediaRequest } from './media-node';
import { canonicalSegment, servePublicPage } from './public-page';
import { handleRestRequest } from './rest-api';
import { isApiPath } from './api-path';
import { isDisguisedConsolePath } from './console-path';
import { neverStoreRedirectsOrErrors } from './next-responses';
import { maskIds, requestRoute } from './route-template';
import { sendFailure } from './errors';
import { serveMetricsWithToken } from './metrics-endpoint';
import { serveReaderBeacon } from './reader-beacon';
import { READER_BEACON_PREFIX } from '../content/urls';
import { READER_EVENTS_PATH, serveReaderEvents } from './reader-events';
import { OPERATOR_OPENAPI_PATH } from '../api/openapi/operator';
import { OPERATOR_DOCUMENT, serveOpenApiDocument } from './openapi-documents';

/**
 * Every HTTP request of the process starts here: a request id, one log line and the metrics
 * when it ends, then the route. What needs no React is answered by Node directly (the REST
 * surface, stored files, health, metrics, public article pages); the rest goes to Next
 * (the console and the home page).
 */
export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createRequestListener(parts: AppParts, next: NextHandler) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query === -1 ? url : url.slice(0, query);
    const method = req.method ?? 'GET';
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.statusCode;
      const route = maskIds(pathname);
      countRequest(method, requestRoute(res, method, pathname), status, seconds);
      logRequest({
        method,
        route,
        status,
        duration_us: Math.round(seconds * 1e6),
        request_id: requestId,
      });
    });
    route(parts, req, res, pathname, next).catch((err) => {
      logLine({ level: 'error', msg: 'unhandled', error: String(err), request_id: requestId });
      if (res.headersSent) res.destroy();
      else sendFailure(res, err);
    });
  };
}

async function route(
  parts: AppParts,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  next: NextHandler,
): Promise<void> {
  if (isApiPath(pathname)) return handleRestRequest(parts, req, res);
  if (takeMediaRequest(parts, req, res)) return;
  if (pathname === '/api/health') return health(parts, res);
  if (pathname === '/api/metrics') return serveMetricsWithToken(req, res);
  if (pathname.startsWith(READER_BEACON_PREFIX)) return serveReaderBeacon(parts, req, res, pathname);
  if (pathname === READER_EVENTS_PATH) return serveReaderEvents(parts, req, res);
  if (pathname === OPERATOR_OPENAPI_PATH && (req.method === 'GET' || req.method === 'HEAD'))
    return serveOpenApiDocument(req, res, OPERATOR_DOCUMENT);
  const method = req.method;
  if (method === 'GET' || method === 'HEAD') {
    const segment = canonicalSegment(pathname);
    if (segment !== null) return servePublicPage(parts, req, res, pathname, segment);
  }
  if (isDisguisedConsolePath(pathname)) {
    // Next would answer its 404 page cacheable for a year; the console's answers are never stored.
    res.setHeader('cache-control', 'no-store');
    sendFailure(res, notFound());
    return;
  }
  neverStoreRedirectsOrErrors(res);
  return next(req, res);
}

/** 200 when the database answers, 503 otherwise; no auth (load balancers call it). */
async function health(parts: AppParts, res: ServerResponse): Promise<void> {
  const result = await checkHealth(parts);
  res.statusCode = result.status === 'ok' ? 200 : 503;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(result));
}
