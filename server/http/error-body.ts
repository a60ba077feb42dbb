import type { ServerResponse } from 'node:http';
import type { ApiError } from '../errors';

/**
 * The contract's error body `{error, code?}` on the wire, for Node responses and fetch Responses.
 * Every failure of the REST surface and of /api/media leaves through here.
 */
const JSON_UTF8 = 'application/json; charset=utf-8';

export function sendApiError(
  res: ServerResponse,
  api: ApiError,
  headers: Record<string, string | string[]> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = api.status;
  if (api.status === 304) {
    // A conditional GET answered by the procedure (NotModifiedError): its ETag kept, no body.
    res.removeHeader('content-type');
    res.removeHeader('content-length');
    res.end();
    return;
  }
  res.setHeader('content-type', JSON_UTF8);
  res.removeHeader('content-length');
  res.end(JSON.stringify(api.toBody()));
}

export function errorResponse(api: ApiError, headers: Headers): Response {
  if (api.status === 304) {
    headers.delete('content-type');
    headers.delete('content-length');
    return new Response(null, { status: 304, headers });
  }
  headers.set('content-type', JSON_UTF8);
  headers.delete('content-length');
  return new Response(JSON.stringify(api.toBody()), { status: api.status, headers });
}
