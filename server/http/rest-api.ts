/**
 * The REST surface `/api/v1/author/*`, served by the Node server before Next sees the request
 * (Next's App Router would cost several times the work of the route itself).
 *
 * Routes are the tRPC procedures of server/api/root.ts, run directly by rest-procedures.ts;
 * this file applies the contract around them:
 * - the path is read and its route matched once (api-path.ts): every later decision (the
 *   conversion-queue refusal, the procedure run, its path parameters) reads that one match;
 * - a HEAD runs as the GET without a body;
 * - a request with a body over 64 KiB is refused 401 before its body is read (identify first);
 *   a smaller one is read first, and its token check and charge are one statement;
 * - the JSON body is read (json-body.ts) with an 8 MiB cap, an idle timeout and `Content-Type`
 *   checked, and an empty body becomes `{}` (publish and unpublish take none);
 * - success statuses come from each procedure's route meta (api/routes.ts); 204 carries no body and no type;
 * - every failure leaves as `{error, code?}` with its status (server/http/errors.ts), written from
 *   the error object itself;
 * - the RateLimit-* headers of the window a procedure was charged to are written here.
 * Besides the procedures: the OpenAPI document and the multipart upload `POST /media`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { identify } from '../admission/admit';
import { ConversionBusyError } from '../content';
import type { AppParts } from '../runtime/parts';
import { invalid, notFound } from '../foundation/errors';
import type { Authenticated } from '../model/account';
import { logLine } from '../foundation/log';
import { inSpanSync, TRACING } from '../foundation/tracing';
import { JSON_UTF8, sendFailure } from './errors';
import { handleMediaUpload } from './media-upload';
import { AUTHOR_DOCUMENT, serveOpenApiDocument } from './openapi-documents';
import { nodeHeaderView } from './node-headers';
import { ODD_PATH_MESSAGE, apiPath, matchApiRoute } from './api-path';
import { noteMatchedRoute } from './route-template';
import { readJsonBody } from './json-body';
import { ProcedureOutcome, runProcedure } from './rest-procedures';

/** JSON bodies: a 1 MB article escapes to at most a few MB; the contract sets no limit of its own. */
const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

/**
 * A write whose declared body is at most this size is read before its token is checked: the
 * bytes are usually in the same packets as the headers, and the token check then shares its
 * round trip with the charge. A larger body (or one of undeclared length) is read only after
 * the token is known good, so a bad token never makes the service receive megabytes.
 */
const EARLY_BODY_BYTES = 64 * 1024;

function declaresSmallBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return (
    declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) <= EARLY_BODY_BYTES
  );
}

/**
 * A HEAD is answered as the GET of the same path without its body (Node sends none for a HEAD):
 * the same token check, the same 404, the same read unit charged.
 */
export async function handleRestRequest(parts: AppParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  // Every REST answer, a refusal before any route included, is never stored (the document sets its own).
  res.setHeader('cache-control', 'no-store');
  let outcome: ProcedureOutcome | undefined;
  try {
    const routed = apiPath(req.url ?? '/');
    if (!routed) throw invalid(ODD_PATH_MESSAGE);
    const { path } = routed;
    if (path === '') throw notFound();
    if (path === '/openapi.json' && (method === 'GET' || method === 'HEAD'))
      return serveOpenApiDocument(req, res, AUTHOR_DOCUMENT);
    if (path === '/media') {
      if (method !== 'POST') throw notFound();
      return await handleMediaUpload(parts, req, res);
    }
    // The one route match; an unknown route is 404 before the token or the body is looked at.
    const matched = matchApiRoute(method, path);
    if (!matched) throw notFound();
    noteMatchedRoute(res, matched.template);
    outcome = new ProcedureOutcome();
    const headers = nodeHeaderView(req);
    let identified: Authenticated | undefined;
    let body: unknown;
    if (matched.route.method === 'POST' || matched.route.method === 'PATCH') {
      if (declaresSmallBody(req) && !(matched.route.converts && parts.content.someQueueFull())) {
        // A small body is read first, so the token check and the charge are one statement (the
        // procedure's admission). The order of the answers is kept: a body refused here is
        // answered 401 instead when the token is bad. While some author's conversions are backed
        // up, writes that convert take the path below, which refuses that author uncharged.
        body = await readJsonBody(req, res, MAX_JSON_BODY_BYTES).catch(async (err: unknown) => {
          await identify(parts.db, headers);
          throw err;
        });
      } else {
        identified = await identify(parts.db, headers);
        // A write that converts Markdown while this account's conversion queue is full would be
        // refused after its body was read and parsed: refuse it first (503, not charged).
        if (matched.route.converts && parts.content.queueFull(identified.account.id)) throw new ConversionBusyError();
        body = await readJsonBody(req, res, MAX_JSON_BODY_BYTES);
      }
    }
    await runProcedure(parts, { matched, query: routed.query, headers, body, identified }, outcome);
    const done = outcome;
    if (TRACING) inResponseSpan(res, () => settle(res, done));
    else settle(res, outcome);
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const gathered = outcome?.gathered();
    if (TRACING) inResponseSpan(res, () => fail(res, err, gathered));
    else fail(res, err, gathered);
  }
}

/** Traces on: writing the answer (status, headers, the body handed to the socket) as a `response` span. */
function inResponseSpan(res: ServerResponse, write: () => void): void {
  inSpanSync('response', {}, (span) => {
    write();
    span.setAttribute('http.response.status_code', res.statusCode);
  });
}

/**
 * Writes a failure. A 500 is our fault and is logged with its cause and stack; a 503 (the
 * database is away) is logged as a notice with its cause only: during an outage every request
 * gets one, and a stack per request would bury the one line that matters.
 */
function fail(res: ServerResponse, error: unknown, headers?: Record<string, string | string[]>): void {
  const { status } = sendFailure(res, error, headers);
  if (status < 500) return;
  const cause = (error as { cause?: unknown } | null)?.cause ?? error;
  if (status === 503) logLine({ level: 'notice', msg: 'request failed', status, error: String(cause) });
  else logLine({ level: 'error', msg: 'request failed', status, error: String(cause), stack: (cause as Error)?.stack });
}

/** Writes what the procedure produced, in the contract's shape. */
function settle(res: ServerResponse, outcome: ProcedureOutcome): void {
  if (outcome.error !== undefined) return fail(res, outcome.error, outcome.gathered());
  for (const [name, value] of Object.entries(outcome.gathered())) res.setHeader(name, value);
  res.statusCode = outcome.statusCode;
  if (outcome.statusCode === 204) {
    res.end();
    return;
  }
  // The type of the error answers too (errors.ts): one JSON type for the whole API.
  res.setHeader('content-type', JSON_UTF8);
  res.end(outcome.body);
}
