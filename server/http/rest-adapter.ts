import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { appRouter } from '../api/root';
import { SUCCESS_STATUS } from '../api/success-status';
import { createApiContext } from '../api/trpc';
import { toApiError } from '../api/errors';
import { ApiError } from '../errors';

/**
 * The one place where trpc-to-openapi is bent to SPEC (NOTES.md (a)):
 * - the request body is read here with a cap (the fetch adapter ignores `maxBodySize`), and an
 *   empty body becomes `{}` so bodyless POSTs (publish, unpublish) are accepted;
 * - success statuses 201/204 come from SUCCESS_STATUS, error statuses from ApiError;
 * - every error body is rewritten to `{error, code?}` (no tRPC `data`, `issues` or stack);
 * - 204 responses carry no body and no Content-Type.
 */
export const API_PREFIX = '/api/v1/author';
/** JSON bodies: a 1 MB article escapes to at most a few MB; SPEC sets no limit of its own. */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

export async function handleRestRequest(req: Request): Promise<Response> {
  let normalized: Request;
  try {
    normalized = await normalizeRequest(req);
  } catch (err) {
    return errorResponse(err instanceof ApiError ? err : toApiError(err), new Headers());
  }
  const response = await createOpenApiFetchHandler({
    endpoint: API_PREFIX,
    router: appRouter,
    req: normalized,
    createContext: createApiContext as never,
    responseMeta: ({ paths, errors }: { paths?: string[]; errors: unknown[] }) => {
      if (errors.length > 0) {
        // A 304 cannot leave the fetch shim with the JSON body it writes (`new Response(body,
        // {status: 304})` throws): it travels as 400 and finalize() sends it without a body.
        const status = toApiError(errors[0]).status;
        return { status: status === 304 ? 400 : status };
      }
      const status = paths?.[0] ? SUCCESS_STATUS[paths[0]] : undefined;
      return status ? { status } : {};
    },
    onError: ({ error }: { error: { cause?: unknown } }) => {
      const api = toApiError(error);
      if (api.status >= 500) console.error(JSON.stringify({ level: 'error', msg: 'request failed', error: String(error.cause ?? error), stack: (error.cause as Error | undefined)?.stack }));
    },
  } as never);
  return finalize(response);
}

async function normalizeRequest(req: Request): Promise<Request> {
  const method = req.method.toUpperCase();
  if (method !== 'POST' && method !== 'PATCH' && method !== 'PUT') return req;
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  const text = await readCapped(req, MAX_JSON_BODY_BYTES);
  const headers = new Headers(req.headers);
  headers.delete('content-length');
  if (text.trim() === '') {
    // Bodyless POSTs are normal here (SPEC: publish/unpublish take no body).
    headers.set('content-type', 'application/json');
    return new Request(req.url, { method, headers, body: '{}' });
  }
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (!type.startsWith('application/json')) throw new ApiError(400, 'Content-Type: must be application/json');
  headers.set('content-type', 'application/json');
  return new Request(req.url, { method, headers, body: text });
}

async function readCapped(req: Request, max: number): Promise<string> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function tooLarge() {
  return new ApiError(400, `body: larger than ${MAX_JSON_BODY_BYTES} bytes`);
}

async function finalize(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  if (response.status === 204) {
    headers.delete('content-type');
    return new Response(null, { status: 204, headers });
  }
  if (response.status < 400) return response;
  let api: ApiError;
  try {
    const body = (await response.json()) as { data?: { api?: { status: number; body: { error: string; code?: string } } } };
    const shaped = body.data?.api;
    api = shaped ? new ApiError(shaped.status as ApiError['status'], shaped.body.error, shaped.body.code) : toApiError(null);
  } catch {
    api = new ApiError(response.status === 404 ? 404 : 500, response.status === 404 ? 'Not found' : 'Internal server error', response.status === 404 ? 'not_found' : undefined);
  }
  return errorResponse(api, headers);
}

export function errorResponse(api: ApiError, headers: Headers): Response {
  if (api.status === 304) {
    // Conditional GET answered by the procedure (NotModifiedError): headers kept, no body.
    headers.delete('content-type');
    headers.delete('content-length');
    return new Response(null, { status: 304, headers });
  }
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.delete('content-length');
  return new Response(JSON.stringify(api.toBody()), { status: api.status, headers });
}
