import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { notFound, unavailable } from '../foundation/errors';
import { activeTraceparent, TRACING } from '../foundation/tracing';
import { sendFailure } from './errors';

/**
 * What the REST thread hands the console: the request, as it came, to the console's thread
 * (runtime/console-thread-host.ts) over a Unix socket only this process can open, and its answer
 * back as it comes (a streamed page streams). Everything before this point (request id, dot
 * segments, the upload's rate floor, `no-store` on Next's redirects and errors) is the REST
 * thread's, as it is for every request; the console's thread sees only what reaches here.
 *
 * Hop-by-hop headers stay on their own hop (RFC 9110, 7.6.1): `Connection` and the fields it
 * names, `Keep-Alive`, `Transfer-Encoding`, `TE`, `Upgrade`, `Proxy-Connection`, and `Expect`
 * (the REST thread has already answered a `100-continue`). While the console's thread is down
 * or restarting, a request gets 503 `service_unavailable`, as for any dependency that is down.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'expect',
]);

/** The flat [name, value, …] list without hop-by-hop fields, nor those `Connection` names. */
function endToEnd(raw: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!named.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

/**
 * Traces on: the request's own span is the console's parent, so the caller's `traceparent` and
 * `tracestate` give way to this thread's (Next, in the console's thread, continues the trace).
 */
function withOurTraceparent(headers: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    if (name !== 'traceparent' && name !== 'tracestate') out.push(headers[i]!, headers[i + 1]!);
  }
  const traceparent = activeTraceparent();
  if (traceparent) out.push('traceparent', traceparent);
  return out;
}

export type ConsoleHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A handler that passes each request to the HTTP server listening on `socketPath`. */
export function proxyToConsole(socketPath: string): ConsoleHandler & { close(): void } {
  // Connections to the console's thread are kept between requests (its server keeps them open
  // longer than this agent keeps them idle, so a reused one is never closed under a request).
  const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  const handle = (req: IncomingMessage, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const upstream = http.request({
        socketPath,
        agent,
        method: req.method,
        path: req.url,
        headers: TRACING ? withOurTraceparent(endToEnd(req.rawHeaders)) : endToEnd(req.rawHeaders),
        setHost: false,
      });
      const fail = () => {
        if (!res.headersSent) sendFailure(res, unavailable('The console is unavailable; retry shortly'));
        else res.destroy();
        resolve();
      };
      upstream.on('error', fail);
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        answer.pipe(res);
        answer.on('error', fail);
        answer.on('end', resolve);
      });
      // A client gone before its answer ends: the console's thread stops working for it.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
        resolve();
      });
      req.on('error', () => upstream.destroy());
      // The head goes at once: a console route may answer before any of the body (a declared
      // length over its cap is a 413 for a client that has sent no byte of it).
      upstream.flushHeaders();
      req.pipe(upstream);
    });
  return Object.assign(handle, { close: () => agent.destroy() });
}

/**
 * The console of an instance started with CONSOLE=off (an instance for the API only): every path
 * that would reach the console is 404 in the error shape, never stored by a cache, so a proxy
 * sends maintainers to the instances that serve it.
 */
export function noConsole(): ConsoleHandler & { close(): void } {
  const handle = (_req: IncomingMessage, res: ServerResponse) => {
    answerNoConsolePage(res);
    return Promise.resolve();
  };
  return Object.assign(handle, { close: () => undefined });
}

/** 404 in the error shape for a path the console does not answer here, `no-store` (never a cached Next 404). */
export function answerNoConsolePage(res: ServerResponse): void {
  res.setHeader('cache-control', 'no-store');
  sendFailure(res, notFound());
}
