/**
 * The one place where the generated document is bent to the contract. trpc-to-openapi always
 * writes a `200` with JSON content (it knows nothing of our route meta's success status) and its own
 * tRPC-shaped error bodies; the contract wants 201/204, `{error, code?}` for exactly the
 * statuses it lists, rate-limit headers and the multipart upload. Pure function over JSON: easy
 * to test, no zod involved.
 */
import type { ApiRoute } from '../routes';
import { ERROR_TEXT, RATE_CLASS_TEXT } from './error-text';
import { uploadOperation } from './media';
import type { JsonObject } from './types';

export const SECURITY_SCHEME = 'bearerAuth';
const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** A 429 carries all of these; successful responses of rated routes carry the RateLimit-* three too. */
const HEADERS: JsonObject = {
  'RateLimit-Limit': {
    description:
      "Size of the limit of this route's rate class in the current fixed 60-second window. On a 429 caused by the daily media quota, the RateLimit-* headers describe the quota instead (bytes, bytes left, next UTC midnight).",
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window (bytes left for the daily media quota).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description:
      'Unix time (seconds since 1970-01-01T00:00:00Z) at which the current window resets. An absolute time, not delta-seconds as in the IETF ratelimit-headers drafts.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying; equals `RateLimit-Reset` minus the current time.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Request-Id': {
    description: 'Identifies the request in the service logs; a well-formed client-sent value is echoed.',
    required: true,
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description:
      'The scheme to authenticate with (RFC 6750): `Bearer`, with `error="invalid_token"` when the token sent is unknown, revoked or not an API token.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer( |$)' },
  },
  ETag: {
    description:
      "Strong entity tag of the article's working version and publication state (beyond the contract). Send it back in `If-Match` to change the article only if nobody else has since, or in `If-None-Match` to revalidate a GET.",
    required: true,
    schema: { type: 'string', pattern: '^"[^"]*"$' },
  },
};
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const SUCCESS_HEADERS = ['X-Request-Id', ...RATE_HEADERS];
const LIMITED_HEADERS = ['X-Request-Id', 'Retry-After', ...RATE_HEADERS];

/**
 * The headers of an error answer: X-Request-Id always; on a 401, how to authenticate; and the
 * RateLimit-* three whenever the request was admitted (counted in its window) before it failed,
 * which a 400 found before admission (invalid JSON, a body too large) or a 503 is not: stated as
 * optional, so a client reads them where they are.
 */
function errorHeaders(status: number): JsonObject {
  const headers: JsonObject = headerRefs(status === 401 ? ['X-Request-Id', 'WWW-Authenticate'] : ['X-Request-Id']);
  if (status === 401) return headers;
  for (const name of RATE_HEADERS)
    headers[name] = {
      ...HEADERS[name],
      required: false,
      description: `${HEADERS[name].description} Present when the request was counted in its window before it failed.`,
    };
  return headers;
}

/** Conditional request headers (beyond the contract, opt-in): without them every route behaves as the contract says. */
const IF_MATCH_PARAMETER: JsonObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Optional. The ETag of the version this change is based on (from GET /posts/{id} or a previous write). When the article has changed since, the request changes nothing and answers 412 `precondition_failed`. `*` matches any existing article.',
  schema: { type: 'string' },
};
const IF_NONE_MATCH_PARAMETER: JsonObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'Optional. The ETag of the copy the client has; when it is still current the answer is 304 without a body.',
  schema: { type: 'string' },
};

const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, ref('headers', n)]));

const API_DESCRIPTION = [
  'Manage your own articles and images over HTTP JSON. Authenticate every call with `Authorization: Bearer dp_live_…`;',
  'call from server-side code only and never embed the token in browser or mobile code.',
  '',
  '- Limits are per account in fixed 60-second windows (the counter resets entirely at the start of the next window); the daily media quota resets at midnight UTC. Current values: `GET /me`.',
  '- External images in `markdown` and `cover_url` are copied into the service at write time (rehost). A failed or stopped rehost never fails the write: see `rehost_failed` and `warnings`.',
  '- `POST /posts/{id}/publish` may answer `pending_moderation`: poll `GET /posts/{id}` for the outcome. There are no webhooks.',
  '- `Idempotency-Key` is not supported: after a timeout on a write, check with `GET /posts/{id}` before retrying.',
  '- Conditional requests (optional, beyond the contract): `GET /posts/{id}` and the article writes return an `ETag`; send it in `If-Match` on `PATCH`, `publish`, `unpublish` or `DELETE` to get 412 `precondition_failed` instead of overwriting a change made elsewhere, or in `If-None-Match` on `GET /posts/{id}` to get 304 when nothing changed.',
].join('\n');

/** `routes`: every REST route with its facts (../routes.ts), in router order. */
export function postProcess(
  generated: JsonObject,
  routes: readonly ApiRoute[],
  { publicOrigin }: { publicOrigin?: string } = {},
): JsonObject {
  const doc: JsonObject = structuredClone(generated);
  doc.info = { ...doc.info, description: API_DESCRIPTION };
  doc.servers = [
    publicOrigin
      ? { url: `${publicOrigin}/api/v1/author`, description: 'This service (PUBLIC_ORIGIN)' }
      : { url: '/api/v1/author', description: 'This service' },
  ];
  doc.tags = [
    { name: 'account', description: 'The token owner' },
    { name: 'posts', description: 'Articles' },
    { name: 'media', description: 'Images for articles and covers' },
  ];
  doc.security = [{ [SECURITY_SCHEME]: [] }];
  doc.components ??= {};
  doc.components.securitySchemes = {
    [SECURITY_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'dp_live_…',
      description:
        'An API token from the account settings. Only tokens starting with `dp_live_` are accepted; a site session JWT is refused with 401.',
    },
  };
  doc.components.headers = { ...doc.components.headers, ...HEADERS };
  const schemas: JsonObject = (doc.components.schemas ??= {});
  // The codes under a name of their own, so a generated client has one union to switch over.
  const codes = schemas.ApiError?.properties?.code;
  if (!codes?.enum) throw new Error('OpenAPI: ApiError must list its codes (common.schema.ts ERROR_CODES)');
  schemas.ErrorCode = { ...codes, description: 'Stable machine code of an error (absent for 400 and 409).' };
  schemas.ApiError.properties.code = ref('schemas', 'ErrorCode');

  doc.paths ??= {};
  addMediaRoutes(doc);
  for (const route of routes) {
    const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
    if (!operation) throw new Error(`OpenAPI: ${route.method} ${route.path} is missing from the document`);
    shapeOperation(operation, route);
  }
  // The service answers exactly what it has; anything outside the contract still gets the error shape.
  for (const [path, item] of Object.entries<JsonObject>(doc.paths)) {
    for (const [method, operation] of Object.entries<JsonObject>(item)) {
      if (!routes.some((r) => r.path === path && r.method.toLowerCase() === method)) replaceGeneratedErrors(operation);
    }
  }
  // Paths grouped by resource in route order, each collection before its members
  // (/posts, /posts/{id}, /posts/{id}/publish…), as readers of the contract expect.
  const groups = [...new Set(routes.map((r) => resource(r.path)))];
  doc.paths = Object.fromEntries(
    Object.entries<JsonObject>(doc.paths).sort(
      ([a], [b]) => rank(groups, resource(a)) - rank(groups, resource(b)) || a.length - b.length,
    ),
  );
  // tRPC-shaped error bodies are gone from every response; drop their schemas.
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  return doc;
}

const resource = (path: string) => path.split('/')[1] ?? '';
const rank = (order: string[], key: string) => (order.includes(key) ? order.indexOf(key) : order.length);

/** `POST /media` is multipart, which trpc-to-openapi cannot describe; it shares from-url's Media schema. */
function addMediaRoutes(doc: JsonObject) {
  const mediaSchema: JsonObject | undefined =
    doc.paths['/media/from-url']?.post?.responses?.['200']?.content?.['application/json']?.schema;
  if (!mediaSchema) throw new Error('OpenAPI: POST /media/from-url must describe the Media schema');
  doc.paths['/media'] = { ...doc.paths['/media'], post: uploadOperation(mediaSchema) };
}

function shapeOperation(operation: JsonObject, route: ApiRoute) {
  operation.security = [{ [SECURITY_SCHEME]: [] }];
  operation.description = [operation.description, RATE_CLASS_TEXT[route.rate]].filter(Boolean).join('\n\n');
  if (Array.isArray(operation.parameters) && operation.parameters.length === 0) delete operation.parameters;
  const body = operation.requestBody?.content?.['application/json']?.schema;
  // PATCH: every field is optional, but an empty object is refused with 400 (nothing to change).
  if (route.method === 'PATCH' && body?.type === 'object') body.minProperties = 1;
  // A cover is one of two things: both given (neither null) is refused with 400.
  if (body?.properties?.cover_asset_id && body.properties.cover_url) {
    body.not = {
      description:
        'Not both covers: send cover_asset_id or cover_url. Null means none: one of them null beside the other, or both null (no cover), is accepted.',
      required: ['cover_asset_id', 'cover_url'],
      properties: { cover_asset_id: { type: 'string' }, cover_url: { type: 'string' } },
    };
  }

  const generatedSuccess = operation.responses?.['200'] ?? {};
  const successHeaders = route.conditional?.etag ? [...SUCCESS_HEADERS, 'ETag'] : SUCCESS_HEADERS;
  const success: JsonObject = {
    description: successDescription(route, generatedSuccess.description),
    headers: headerRefs(successHeaders),
  };
  // 204 has no `content` at all: client generators choke on an empty one.
  if (route.success !== 204) success.content = generatedSuccess.content;

  const responses: JsonObject = { [route.success]: success };
  if (route.conditional?.read) {
    responses['304'] = {
      description: 'Not modified: `If-None-Match` names the current version. No body.',
      headers: headerRefs(successHeaders),
    };
  }
  for (const status of route.errors) responses[status] = errorResponse(status);
  operation.responses = responses;

  const conditionalParameter = route.conditional?.write
    ? IF_MATCH_PARAMETER
    : route.conditional?.read
      ? IF_NONE_MATCH_PARAMETER
      : undefined;
  if (conditionalParameter) operation.parameters = [...(operation.parameters ?? []), conditionalParameter];
}

function successDescription(route: ApiRoute, generated?: string): string {
  if (generated && generated !== 'Successful response') return generated;
  if (route.success === 201) return 'Created';
  if (route.success === 204) return 'Done; no body';
  return 'OK';
}

/**
 * One error status of a route: its body is an ApiError whose `code`, when the status has one, is
 * that one code (`const`), so the union of a route's documented codes is its responses'.
 */
function errorResponse(status: keyof typeof ERROR_TEXT): JsonObject {
  const text = ERROR_TEXT[status];
  const example = text.code ? { error: text.example, code: text.code } : { error: text.example };
  const schema = text.code
    ? { allOf: [ref('schemas', 'ApiError')], properties: { code: { const: text.code } }, required: ['error', 'code'] }
    : ref('schemas', 'ApiError');
  return {
    description: text.code ? `${text.description} \`code\`: \`${text.code}\`.` : text.description,
    headers: status === 429 ? headerRefs(LIMITED_HEADERS) : errorHeaders(status),
    content: { 'application/json': { schema, example } },
  };
}

function replaceGeneratedErrors(operation: JsonObject) {
  for (const status of Object.keys(operation.responses ?? {})) {
    const code = Number(status);
    if (code >= 400)
      operation.responses[status] =
        code in ERROR_TEXT
          ? errorResponse(code as keyof typeof ERROR_TEXT)
          : { description: 'Error', content: { 'application/json': { schema: ref('schemas', 'ApiError') } } };
  }
}
