import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { checkHealth } from '../runtime/health';
import type { AppParts } from '../runtime/parts';
import { logLine, logRequest } from '../foundation/log';
import { countRequest } from '../foundation/metrics';
import { endRequestSpan, startRequestSpan, traceIdOf, TRACING, withSpan } from '../foundation/tracing';
import { notFound } from '../foundation/errors';
import { takeMediaRequest } from './media-node';
import { canonicalSegment, servePublicPage } from './public-page';
import { handleRestRequest } from './rest-api';
import { isApiPath } from './api-path';
import { isDisguisedConsolePath } from './console-path';
import { neverStoreRedirectsOrErrors } from './next-responses';
import { CONSOLE_UPLOAD_PATH, tooSlowMessage, watchConnectionRate, type TooSlow } from './body-rate';
import { maskIds, requestRoute } from './route-template';
import { sendFailure } from './errors';
import { answerNoConsolePage, type ConsoleHandler } from './console-proxy';
import { serveMetricsWithToken } from './metrics-endpoint';
import { serveReaderBeacon } from './reader-beacon';
import { DOT_SEGMENT, READER_BEACON_PREFIX, routedPath, withoutDotSegments } from '../content/urls';
import { READER_EVENTS_PATH, serveReaderEvents } from './reader-events';
import { OPERATOR_OPENAPI_PATH } from '../api/openapi/operator';
import { OPERATOR_DOCUMENT, serveOpenApiDocument } from './openapi-documents';

/**
 * Every HTTP request of the process starts here: a request id, one log line and the metrics
 * when it ends, then the route. What needs no React is answered by Node directly (the REST
 * surface, stored files, health, metrics, public article pages); the rest goes to Next
 * (the console and the home page), in the console's thread (console-proxy.ts).
 */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Probes (a proxy's health checks every 500 ms, metrics scrapes) leave no trace: they would be most of them. */
const UNTRACED = new Set(['/api/health', '/api/metrics']);

export function createRequestListener(parts: AppParts, toConsole: ConsoleHandler) {
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
    // Traces on: the request's span, a child of the caller's `traceparent` if it sent one; off,
    // undefined (foundation/tracing.ts: nothing else is built for it).
    const span = TRACING && !UNTRACED.has(pathname) ? startRequestSpan(method, req.headers) : undefined;
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.statusCode;
      const route = maskIds(pathname);
      const template = requestRoute(res, method, pathname);
      countRequest(method, template, status, seconds);
      if (span) endRequestSpan(span, method, template, status);
      logRequest(
        {
          method,
          route,
          status,
          duration_us: Math.round(seconds * 1e6),
          request_id: requestId,
        },
        span && traceIdOf(span),
      );
    });
    if (span)
      res.once('close', () => {
        // A client gone before its answer: the span ends with the request, as far as it got.
        if (!res.writableFinished) endRequestSpan(span, method, requestRoute(res, method, pathname), res.statusCode);
      });
    const handled = span
      ? withSpan(span, () => route(parts, req, res, pathname, toConsole))
      : route(parts, req, res, pathname, toConsole);
    handled.catch((err) => {
      logLine({
        level: 'error',
        msg: 'unhandled',
        error: String(err),
        request_id: requestId,
        ...(span && { trace_id: traceIdOf(span) }),
      });
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
  toConsole: ConsoleHandler,
): Promise<void> {
  if (isApiPath(pathname)) return handleRestRequest(parts, req, res);
  // The beacons answer their canonical spelling only (reader-beacon.ts matches it exactly); any
  // other spelling that a lenient server would route to them (`//api/reader/…`, dot segments,
  // escapes, upper case) is a 404 here, never a redirect to a beacon that would count a reader.
  if (pathname.startsWith(READER_BEACON_PREFIX)) return serveReaderBeacon(parts, req, res, pathname);
  if (routedPath(pathname).startsWith(READER_BEACON_PREFIX)) return refuseOtherSpelling(res);
  const resolved = dotSegmentTarget(req.url ?? '/');
  if (resolved !== undefined) return answerDotSegments(res, resolved);
  if (takeMediaRequest(parts, req, res)) return;
  if (pathname === '/api/health') return health(parts, res);
  if (pathname === '/api/metrics') return serveMetricsWithToken(req, res);
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
    answerNoConsolePage(res);
    return;
  }
  neverStoreRedirectsOrErrors(res, { queried: (req.url ?? '').includes('?') });
  if (method === 'POST' && pathname === CONSOLE_UPLOAD_PATH)
    watchConnectionRate(req, res, (slow) => tooSlow(res, slow));
  return toConsole(req, res);
}

/** A console upload under its rate floor: the console's JSON answer in words, then the connection closed. */
function tooSlow(res: ServerResponse, slow: TooSlow): void {
  if (!res.headersSent) {
    res.statusCode = 400;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('connection', 'close');
    const text = tooSlowMessage(slow);
    res.end(JSON.stringify({ ok: false, error: `${text[0]!.toUpperCase()}${text.slice(1)}.` }), () =>
      res.socket?.destroy(),
    );
  } else res.socket?.destroy();
}

/**
 * A path with `.` or `..` segments, written out or percent-encoded (`%2e`), `\` separating
 * segments as `/` does (the WHATWG parser reads it so): Next, browsers and most proxies resolve
 * it, so `/x/..` would get the home page and `/_next/static/../x` an asset, each cacheable for
 * up to a year under a key no purge names, one for every spelling a client invents. Such a
 * path gets a 308 to the path it resolves to (query kept) that no cache stores, or a 404
 * (`no-store`) when it resolves to no path of this host (`/x/..//evil.example` is another
 * host's to a browser). The REST surface answers these forms 400 itself (api-path.ts), before this.
 *
 * The location a request target with dot segments redirects to (`null`: none, answer 404), or
 * undefined when its path has none. A `#` is never part of a request target: to the WHATWG
 * parser what follows it is a fragment (`/#/..` is `/`), to a cache reading the raw text it is
 * part of the path, so such a target too is sent to its path without it.
 */
export function dotSegmentTarget(url: string): string | null | undefined {
  const hash = url.indexOf('#');
  const target = hash === -1 ? url : url.slice(0, hash);
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  if (hash === -1 && !path.split(/[\\/]/).some((segment) => DOT_SEGMENT.test(segment))) return undefined;
  // Not a path (absolute form), or one starting `//` or `/\`: another host's to the WHATWG parser.
  if (!path.startsWith('/') || /^.[\\/]/.test(path)) return null;
  const location = `${withoutDotSegments(path.replace(/\\/g, '/'))}${mark === -1 ? '' : target.slice(mark)}`;
  return location.startsWith('//') || !/^[\x21-\x7e]+$/.test(location) ? null : location;
}

function refuseOtherSpelling(res: ServerResponse): void {
  res.setHeader('cache-control', 'no-store');
  sendFailure(res, notFound());
}

function answerDotSegments(res: ServerResponse, location: string | null): void {
  res.setHeader('cache-control', 'no-store');
  if (location === null) {
    sendFailure(res, notFound());
    return;
  }
  res.statusCode = 308;
  res.setHeader('location', location);
  res.end();
}

/** 200 when the database answers, 503 otherwise; no auth (load balancers call it). */
async function health(parts: AppParts, res: ServerResponse): Promise<void> {
  const result = await checkHealth(parts);
  res.statusCode = result.status === 'ok' ? 200 : 503;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(result));
}
