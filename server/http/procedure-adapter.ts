/**
 * trpc-to-openapi's Node HTTP adapter, bent to run one procedure for rest-api.ts and nothing
 * more: the one module that knows the adapter's request and response types.
 *
 * The adapter is handed a request it needs no work for (the routed path, the already-parsed
 * body, a signal that never aborts) and a response it cannot send: what it writes is kept in a
 * PendingResponse, which rest-api.ts then writes in the contract's shape. The adapter still
 * matches the procedure (its route meta's path, api/routes.ts); the reads that skip it are in
 * rest-reads.ts.
 */
import type { ServerResponse } from 'node:http';
import type { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { appRouter } from '../api/root';
import { successStatus } from '../api/routes';
import type { RequestHeaders } from '../api/authenticate';
import type { ApiContext } from '../api/trpc';
import type { LimitWindow } from '../errors';
import type { Authenticated } from '../services/tokens';
import { rateLimitHeaders } from './errors';

/**
 * What the adapter writes, kept until the request is settled so the contract's shape can be
 * applied: the adapter sets a status, headers and one JSON string; procedures add headers
 * (RateLimit-*) through the context. The adapter's abort signal listens on the real response.
 */
export class PendingResponse {
  statusCode = 200;
  readonly headers: Record<string, string | string[]> = {};
  body: string | undefined;
  /** What the procedure failed with, as thrown (tRPC wraps it in a TRPCError). */
  error: unknown;
  /** The minute window the request was charged to. */
  window: LimitWindow | undefined;

  constructor(private readonly raw: ServerResponse) {}

  setHeader(name: string, value: string | string[]): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  chargedTo(window: LimitWindow): void {
    this.window = window;
  }
  /** Headers gathered for the response: the procedure's own and the window's RateLimit-*. */
  gathered(): Record<string, string | string[]> {
    return this.window ? { ...this.headers, ...rateLimitHeaders(this.window, false) } : this.headers;
  }
  end(body?: string): void {
    this.body = body;
  }
  once(event: string, listener: () => void): this {
    this.raw.once(event, listener);
    return this;
  }
  off(event: string, listener: () => void): this {
    this.raw.off(event, listener);
    return this;
  }
  get writableEnded(): boolean {
    return this.raw.writableEnded;
  }
}

/**
 * The request as the adapter sees it. trpc-to-openapi accepts a fetch `Request` as well as a
 * Node request, and for a Node request it builds a whole fetch `Request` (headers copied, an
 * AbortController, a body stream) only to take its abort signal: about a tenth of the CPU of
 * a small read. So the adapter gets this object instead: a `Request` by prototype, carrying
 * just what the adapter reads (method, url, headers.get, the parsed body) as own properties.
 * Its signal never aborts: no procedure stops early on a client disconnect.
 */
interface ApiRequest {
  method: string;
  url: string;
  headers: RequestHeaders;
  body: unknown;
  signal: AbortSignal;
  query?: unknown;
  pending: PendingResponse;
  identified?: Authenticated;
}

const NEVER_ABORTED = new AbortController().signal;

function adapterRequest(call: ProcedureCall, pending: PendingResponse): ApiRequest {
  const req = Object.create(Request.prototype) as ApiRequest;
  Object.defineProperties(req, {
    method: { value: call.method },
    url: { value: call.url },
    headers: { value: call.headers },
    body: { value: call.body },
    signal: { value: NEVER_ABORTED },
    query: { value: undefined, writable: true },
  });
  req.pending = pending;
  req.identified = call.identified;
  return req;
}

const adapter = createOpenApiNodeHttpHandler({
  router: appRouter,
  createContext: ({ req }: { req: ApiRequest }): ApiContext => ({
    headers: req.headers,
    res: req.pending,
    identified: req.identified,
  }),
  responseMeta: ({ paths, errors }: { paths?: string[]; errors: unknown[] }) => {
    if (errors.length > 0) return {};
    const status = paths?.[0] ? successStatus(paths[0]) : undefined;
    return status ? { status } : {};
  },
  onError: ({ error, req }: { error: TRPCError; req: ApiRequest }) => {
    req.pending.error = error;
  },
} as never) as unknown as (req: ApiRequest, res: PendingResponse) => Promise<void>;

/** One procedure call as rest-api.ts asks for it; a HEAD arrives here as its GET. */
export interface ProcedureCall {
  method: string;
  /** The routed path below the mount point, with its query (api-path.ts). */
  url: string;
  headers: RequestHeaders;
  /** The parsed JSON body of a write; undefined for a read. */
  body: unknown;
  /** The caller, when identified before the body was read. */
  identified?: Authenticated;
}

/** Runs the procedure the call's route names; its outcome, failure included, lands in `pending`. */
export function runProcedure(call: ProcedureCall, pending: PendingResponse): Promise<void> {
  return adapter(adapterRequest(call, pending), pending);
}
