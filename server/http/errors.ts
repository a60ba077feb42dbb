/**
 * The one place a failure becomes an HTTP answer: status, the contract's body `{error, code?}`
 * and headers (docs/api.md "Errors"). REST procedures, the multipart upload, /api/media and the
 * process routes (health, metrics) all answer through here, from the error object itself.
 *
 * The domain says what went wrong (a `DomainError` kind, server/foundation/errors.ts); this table says
 * what that is in HTTP. `code` is omitted for 400 and 409 (the message names the field) and
 * fixed for every other status.
 */
import type { ServerResponse } from 'node:http';
import type { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../../db/errors';
import { DomainError, type ErrorKind, type LimitWindow } from '../foundation/errors';
import type { ErrorCode } from '../api/common.schema';

const HTTP_OF_KIND: Record<ErrorKind, { status: number; code?: ErrorCode }> = {
  invalid: { status: 400 },
  unauthenticated: { status: 401, code: 'unauthorized' },
  not_found: { status: 404, code: 'not_found' },
  conflict: { status: 409 },
  stale: { status: 412, code: 'precondition_failed' },
  not_modified: { status: 304 },
  // The only well-formed input the contract refuses as such is an animated image (POST /media).
  unsupported: { status: 422, code: 'animated_image' },
  rate_limited: { status: 429, code: 'rate_limited' },
  unavailable: { status: 503, code: 'service_unavailable' },
};

export interface HttpFailure {
  status: number;
  /** Absent for 304. */
  body?: { error: string; code?: string };
  /** RateLimit-* and Retry-After of a rate_limited failure; WWW-Authenticate of a 401. */
  headers: Record<string, string>;
}

const INTERNAL: HttpFailure = { status: 500, body: { error: 'Internal server error' }, headers: {} };

/**
 * What `error` is in HTTP: a DomainError's kind, or an unreachable database (503). Anything
 * else is a 500 that says nothing of its cause.
 */
export function httpFailure(error: unknown): HttpFailure {
  const domain = error instanceof DomainError ? error : unavailableOf(error);
  if (!domain) return INTERNAL;
  const { status, code } = HTTP_OF_KIND[domain.kind];
  const headers = domain.window ? rateLimitHeaders(domain.window, true) : {};
  if (status === 401) headers['WWW-Authenticate'] = bearerChallenge(domain);
  if (status === 304) return { status, headers };
  return { status, body: code ? { error: domain.message, code } : { error: domain.message }, headers };
}

/**
 * A 401 names the scheme that would be accepted (RFC 9110 §11.6.1 requires the challenge; RFC 6750
 * §3 gives Bearer's). A token that was sent and refused adds `error="invalid_token"`; a request
 * without one (no header, another scheme) gets the bare challenge, as RFC 6750 §3.1 asks.
 */
function bearerChallenge(error: DomainError): string {
  return error.tokenRefused ? 'Bearer error="invalid_token"' : 'Bearer';
}

function unavailableOf(error: unknown): DomainError | undefined {
  return isDatabaseUnavailable(error)
    ? new DomainError('unavailable', 'Database temporarily unavailable; retry shortly')
    : undefined;
}

/** "title: must not be empty": a 400 carries no code, so the message must name the field. */
export function describeZodError(err: ZodError): string {
  const issues = err.issues.slice(0, 3).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  return issues.join('; ');
}

/**
 * The contract's rate-limit headers for a limit: RateLimit-Reset is a Unix time; Retry-After
 * (seconds) only on a refusal. Every request charged to a window carries them, refused or not.
 */
export function rateLimitHeaders(window: LimitWindow, refused: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(window.limit),
    'RateLimit-Remaining': String(window.remaining),
    'RateLimit-Reset': String(window.reset),
  };
  if (refused) headers['Retry-After'] = String(window.retryAfter);
  return headers;
}

/** The one Content-Type of every JSON answer of the REST API, success or failure. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Writes `error` on a Node response, after `headers` (those the request had gathered: the
 * minute window's RateLimit-*, an ETag); a rate_limited failure's own headers win over them.
 * Returns the failure, so callers can log a 5xx.
 */
export function sendFailure(
  res: ServerResponse,
  error: unknown,
  headers: Record<string, string | string[]> = {},
): HttpFailure {
  const failure = httpFailure(error);
  for (const [name, value] of Object.entries({ ...headers, ...failure.headers })) res.setHeader(name, value);
  res.statusCode = failure.status;
  res.removeHeader('content-length');
  if (!failure.body) {
    // A conditional GET answered by the procedure (not_modified): its ETag kept, no body.
    res.removeHeader('content-type');
    res.end();
    return failure;
  }
  res.setHeader('content-type', JSON_UTF8);
  res.end(JSON.stringify(failure.body));
  return failure;
}
