/**
 * The one error type the REST surface knows. Error bodies are `{error, code?}` (docs/api.md "Errors");
 * `code` is omitted for 400 and 409 and fixed for the other statuses.
 * Domain modules throw these (or their own errors that the transport maps here).
 */
export type ApiStatus = 304 | 400 | 401 | 404 | 409 | 412 | 413 | 415 | 422 | 429 | 500 | 503;

export class ApiError extends Error {
  constructor(
    readonly status: ApiStatus,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: string; code?: string } {
    return this.code ? { error: this.message, code: this.code } : { error: this.message };
  }
}

/**
 * `If-None-Match` named the current version of GET /posts/{id} (conditional requests, beyond
 * the contract): not a failure, but it ends the procedure like one; the transport answers 304 with the
 * headers already set (ETag) and no body.
 */
export class NotModifiedError extends ApiError {
  constructor() {
    super(304, 'Not modified');
    this.name = 'NotModifiedError';
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = 'Missing or invalid API token') => new ApiError(401, message, 'unauthorized');
export const notFound = (message = 'Not found') => new ApiError(404, message, 'not_found');
export const conflict = (message: string) => new ApiError(409, message);
export const rateLimited = (message = 'Rate limit exceeded') => new ApiError(429, message, 'rate_limited');
export const serviceUnavailable = (message = 'Service temporarily unavailable') =>
  new ApiError(503, message, 'service_unavailable');
