/**
 * A typed client for the Author Publishing REST API. The paths, bodies and statuses come from
 * the OpenAPI document (./schema.ts, made by openapi-typescript); this layer adds what the
 * generator cannot: parsed response headers, 204 and 304 as results of their own, one error
 * type with the documented codes, and request bodies the service would refuse kept out by the
 * compiler. Calls go through openapi-fetch.
 */
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

// The generated types themselves, for what the methods below do not name (e.g. an article's type).
export type { components, paths } from './schema.js';

// ---- Types derived from the generated paths ---------------------------------------------------

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** Header names as declared by the response, lower-cased (HTTP header names ignore case). */
type DeclaredHeaders<R> = R extends { headers: infer H }
  ? { [K in keyof H as string extends K ? never : Lowercase<K & string>]: H[K] }
  : object;

/** `Key` present when the response declares `Name`, optional when the document says optional. */
type HeaderField<H, Name extends string, Key extends string, T> = Name extends keyof H
  ? Pick<H, Name> extends Required<Pick<H, Name>>
    ? { [_ in Key]: T }
    : { [_ in Key]?: T }
  : unknown;

/** `RateLimit-Reset` is a Unix time in seconds, not a delay. */
export interface RateLimit {
  limit: number;
  remaining: number;
  reset: number;
}

type Flat<T> = { [K in keyof T]: T[K] };

type HeadersOf<R> = Flat<
  HeaderField<DeclaredHeaders<R>, 'x-request-id', 'requestId', string> &
    HeaderField<DeclaredHeaders<R>, 'etag', 'etag', string> &
    HeaderField<DeclaredHeaders<R>, 'ratelimit-limit', 'rateLimit', RateLimit> &
    HeaderField<DeclaredHeaders<R>, 'retry-after', 'retryAfter', number>
>;

/** The result kinds of one documented status. */
type Outcome<S, R> = S extends 204
  ? { kind: 'no_content'; status: 204; headers: HeadersOf<R> }
  : S extends 304
    ? { kind: 'not_modified'; status: 304; headers: HeadersOf<R> }
    : `${S & number}` extends `2${string}`
      ? { kind: 'ok'; status: S; data: JsonOf<R>; headers: HeadersOf<R> }
      : never;

/**
 * Headers an error may carry: `rateLimit` when the request was counted in its window (always on
 * a 429), `retryAfter` on a 429.
 */
export interface ErrorHeaders {
  requestId?: string;
  rateLimit?: RateLimit;
  retryAfter?: number;
}

export interface Failure {
  kind: 'error';
  status: number;
  error: ApiError;
  headers: ErrorHeaders;
}

type Result<O> = O extends { responses: infer R } ? { [S in keyof R]: Outcome<S, R[S]> }[keyof R] | Failure : never;

type Operation<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;
type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** Every error body of every route. */
type ErrorBody = Extract<
  {
    [P in keyof paths]: {
      [M in keyof paths[P]]: paths[P][M] extends { responses: infer R } ? JsonOf<R[keyof R]> : never;
    }[keyof paths[P]];
  }[keyof paths],
  { error: string }
>;
type CodeOf<B> = B extends unknown ? ('code' extends keyof B ? B['code'] : never) : never;

/**
 * The machine codes the document lists (docs/api.md "Errors"): a union, so a `switch` over it
 * can be checked for completeness, and a code added to the contract shows up at compile time.
 */
export type ErrorCode = NonNullable<CodeOf<ErrorBody>>;

/** An answer with status 400 or more. Named so that it never shadows the global `Error`. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The message for people, as the service wrote it. */
  readonly error: string;
  /** Absent on 400 and 409, whose `error` starts with the field it is about. */
  readonly code: ErrorCode | undefined;

  constructor(
    readonly status: number,
    body: unknown,
    readonly requestId: string | undefined,
  ) {
    const fields = typeof body === 'object' && body !== null ? (body as { error?: unknown; code?: unknown }) : {};
    const error = typeof fields.error === 'string' ? fields.error : String(body || `HTTP ${status}`);
    super(`${status} ${error}`);
    this.error = error;
    this.code = typeof fields.code === 'string' ? (fields.code as ErrorCode) : undefined;
  }
}

// ---- Request bodies ---------------------------------------------------------------------------

/** The service refuses a body with both cover fields, whatever their values (docs/api.md). */
type OneCover<B> = B extends unknown
  ? (Omit<B, 'cover_url'> & { cover_url?: never }) | (Omit<B, 'cover_asset_id'> & { cover_asset_id?: never })
  : never;

/** `PATCH` with no field is a 400: at least one key must be there. */
type AtLeastOne<B> = B extends unknown
  ? { [K in keyof B]-?: Required<Pick<B, K>> & Partial<Omit<B, K>> }[keyof B]
  : never;

export type CreatePostBody = OneCover<JsonBody<Operation<'/posts', 'post'>>>;
export type UpdatePostBody = AtLeastOne<OneCover<JsonBody<Operation<'/posts/{id}', 'patch'>>>>;
export type ListPostsQuery = NonNullable<Operation<'/posts', 'get'>['parameters']['query']>;

// ---- The client -------------------------------------------------------------------------------

export interface AuthorClientOptions {
  /** The API root, e.g. `https://blog.example/api/v1/author` (the document's server is relative). */
  baseUrl: string;
  /** `dp_live_…`; server-side only, never ship it to a browser. */
  token: string;
  fetch?: (request: Request) => Promise<Response>;
}

function readHeaders(headers: Headers) {
  const integer = (name: string) => {
    const value = headers.get(name);
    return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
  };
  const read: ErrorHeaders & { etag?: string } = {};
  const requestId = headers.get('x-request-id');
  if (requestId !== null) read.requestId = requestId;
  const etag = headers.get('etag');
  if (etag !== null) read.etag = etag;
  const [limit, remaining, reset] = ['limit', 'remaining', 'reset'].map((part) => integer(`ratelimit-${part}`));
  if (limit !== undefined && remaining !== undefined && reset !== undefined)
    read.rateLimit = { limit, remaining, reset };
  const retryAfter = integer('retry-after');
  if (retryAfter !== undefined) read.retryAfter = retryAfter;
  return read;
}

/**
 * openapi-fetch answers 204 with `data: undefined` and 304 with an empty `error`; the status
 * says which result it is.
 */
async function settle<O>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Result<O>> {
  const { data, error, response } = await call;
  const { status } = response;
  const headers = readHeaders(response.headers);
  const result =
    status === 204
      ? { kind: 'no_content', status, headers }
      : status === 304
        ? { kind: 'not_modified', status, headers }
        : response.ok
          ? { kind: 'ok', status, data, headers }
          : { kind: 'error', status, error: new ApiError(status, error, headers.requestId), headers };
  // The shape per status is the document's promise, checked against the service by the tests.
  return result as Result<O>;
}

type Conditional = { ifMatch?: string };

export function createAuthorClient({ baseUrl, token, fetch }: AuthorClientOptions) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` }, fetch });
  const ifMatch = (opts?: Conditional) => ({ 'If-Match': opts?.ifMatch });

  return {
    me: () => settle<Operation<'/me', 'get'>>(client.GET('/me')),

    /** One page; pass `next_cursor` back as `cursor` until it is null. */
    listPosts: (query?: ListPostsQuery) =>
      settle<Operation<'/posts', 'get'>>(client.GET('/posts', { params: { query } })),

    /** With `ifNoneMatch` (an earlier `etag`), an unchanged article is the `not_modified` result. */
    getPost: (id: string, opts?: { ifNoneMatch?: string }) =>
      settle<Operation<'/posts/{id}', 'get'>>(
        client.GET('/posts/{id}', { params: { path: { id }, header: { 'If-None-Match': opts?.ifNoneMatch } } }),
      ),

    createPost: (body: CreatePostBody) => settle<Operation<'/posts', 'post'>>(client.POST('/posts', { body })),

    /** With `ifMatch`, a change made since that `etag` is a 412 `precondition_failed`. */
    updatePost: (id: string, body: UpdatePostBody, opts?: Conditional) =>
      settle<Operation<'/posts/{id}', 'patch'>>(
        client.PATCH('/posts/{id}', { params: { path: { id }, header: ifMatch(opts) }, body }),
      ),

    deletePost: (id: string, opts?: Conditional) =>
      settle<Operation<'/posts/{id}', 'delete'>>(
        client.DELETE('/posts/{id}', { params: { path: { id }, header: ifMatch(opts) } }),
      ),

    /** `pending_moderation` is a normal outcome for a moderated account: poll getPost. */
    publishPost: (id: string, opts?: Conditional) =>
      settle<Operation<'/posts/{id}/publish', 'post'>>(
        client.POST('/posts/{id}/publish', { params: { path: { id }, header: ifMatch(opts) } }),
      ),

    unpublishPost: (id: string, opts?: Conditional) =>
      settle<Operation<'/posts/{id}/unpublish', 'post'>>(
        client.POST('/posts/{id}/unpublish', { params: { path: { id }, header: ifMatch(opts) } }),
      ),

    /** One image file (not animated), sent as multipart `file`. */
    uploadMedia: (file: Blob, filename = 'upload') => {
      const form = new FormData();
      form.set('file', file, filename);
      // The document types the part as a binary string; openapi-fetch sends a FormData as it is.
      return settle<Operation<'/media', 'post'>>(client.POST('/media', { body: form as never }));
    },

    /** Downloads an http(s) image into the caller's media; an animated GIF becomes `kind: gif`. */
    mediaFromUrl: (url: string) =>
      settle<Operation<'/media/from-url', 'post'>>(client.POST('/media/from-url', { body: { url } })),
  };
}

export type AuthorClient = ReturnType<typeof createAuthorClient>;
