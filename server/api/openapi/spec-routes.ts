/**
 * The REST surface of the contract (docs/api.md "Routes"), as data: the generator knows neither
 * success statuses other than 200 nor the contract's per-route error lists, so the
 * post-processor takes them from here. Keep this table in the contract's route order; tests
 * compare it with the document.
 */
type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
export type RateClass = 'read' | 'write' | 'publish' | 'media';
export type ErrorStatus = 400 | 401 | 404 | 409 | 412 | 422 | 429 | 503;

export interface SpecRoute {
  method: HttpMethod;
  path: string;
  success: 200 | 201 | 204;
  errors: readonly ErrorStatus[];
  rate: RateClass;
  /** Routes trpc-to-openapi cannot describe (multipart) or that may not be procedures yet. */
  handWritten?: boolean;
  /**
   * Conditional requests on articles, beyond the contract and opt-in: `etag` — the success carries the
   * article's ETag; `read` — `If-None-Match` may answer 304; `write` — `If-Match` may answer 412.
   */
  conditional?: { etag: boolean; read?: boolean; write?: boolean };
}

export const SPEC_ROUTES: readonly SpecRoute[] = [
  { method: 'get', path: '/me', success: 200, errors: [401, 429, 503], rate: 'read' },
  { method: 'get', path: '/posts', success: 200, errors: [400, 401, 429, 503], rate: 'read' },
  {
    method: 'get',
    path: '/posts/{id}',
    success: 200,
    errors: [400, 401, 404, 429, 503],
    rate: 'read',
    conditional: { etag: true, read: true },
  },
  {
    method: 'post',
    path: '/posts',
    success: 201,
    errors: [400, 401, 409, 429, 503],
    rate: 'write',
    conditional: { etag: true },
  },
  // 412 (If-Match) is ours, beyond the contract: only sent to clients that send If-Match.
  {
    method: 'patch',
    path: '/posts/{id}',
    success: 200,
    errors: [400, 401, 404, 409, 412, 429, 503],
    rate: 'write',
    conditional: { etag: true, write: true },
  },
  {
    method: 'post',
    path: '/posts/{id}/publish',
    success: 200,
    errors: [400, 401, 404, 412, 429, 503],
    rate: 'publish',
    conditional: { etag: true, write: true },
  },
  {
    method: 'post',
    path: '/posts/{id}/unpublish',
    success: 204,
    errors: [400, 401, 404, 412, 429, 503],
    rate: 'write',
    conditional: { etag: true, write: true },
  },
  {
    method: 'delete',
    path: '/posts/{id}',
    success: 204,
    errors: [400, 401, 404, 412, 429, 503],
    rate: 'write',
    conditional: { etag: false, write: true },
  },
  { method: 'post', path: '/media', success: 200, errors: [400, 401, 422, 429, 503], rate: 'media', handWritten: true },
  // 422 animated_image too: from-url turns only animated GIFs into video; other animated formats are refused.
  {
    method: 'post',
    path: '/media/from-url',
    success: 200,
    errors: [400, 401, 422, 429, 503],
    rate: 'media',
    handWritten: true,
  },
];

/** The default limit of each rate class, quoted in each operation's description. */
export const RATE_CLASS_TEXT: Record<RateClass, string> = {
  read: 'Rate class: read (60 requests per minute by default).',
  write:
    'Rate class: write (30 requests per minute by default); each rehosted image also counts against the media limits.',
  publish: 'Rate class: publish (1 request per minute by default).',
  media: 'Rate class: media (10 requests per minute and 200 MiB per UTC day by default).',
};

/** When each error status happens and its fixed `code`, if any (docs/api.md "Errors"). */
export const ERROR_TEXT: Record<ErrorStatus, { description: string; code?: string; example: string }> = {
  400: {
    description:
      'Bad request: invalid JSON, a missing or invalid field, a bad query parameter, a non-UUID path id, a bad cursor or an empty document. `code` is omitted.',
    example: 'title: must not be empty',
  },
  401: {
    description: 'Missing, wrong or revoked token, deleted account, or a site JWT instead of a dp_live_ token.',
    code: 'unauthorized',
    example: 'Authorization: the token is unknown or revoked',
  },
  404: {
    description: "Not found: absent, deleted, or another author's article (they look the same).",
    code: 'not_found',
    example: 'Not found',
  },
  409: {
    description: 'The slug is already used by one of your articles. `code` is omitted.',
    example: 'slug: already used by another of your articles',
  },
  412: {
    description:
      'Only with `If-Match` (beyond the contract): the article has changed since the version named there was read; nothing was changed. GET it again, reapply the change and send the new ETag.',
    code: 'precondition_failed',
    example: 'If-Match: the article has changed since that version was read; nothing was changed',
  },
  422: {
    description:
      'The image is animated: `POST /media` accepts none, `POST /media/from-url` stores only animated GIFs (as video).',
    code: 'animated_image',
    example: 'file: animated images are not accepted',
  },
  429: {
    description: 'Minute limit or daily media quota exhausted; see the headers for when to retry.',
    code: 'rate_limited',
    example: 'read limit of 60 requests per minute reached; retry after 12 s',
  },
  503: {
    description: 'An internal dependency (database, storage) is temporarily unavailable; retry shortly.',
    code: 'service_unavailable',
    example: 'Database temporarily unavailable; retry shortly',
  },
};
