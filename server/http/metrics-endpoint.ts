import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { env } from '../foundation/env';
import { notFound, unauthenticated, unavailable } from '../foundation/errors';
import { registry } from '../foundation/metrics';
import { bearerMatches } from './bearer';
import { sendFailure } from './errors';

/**
 * Prometheus metrics, private by default whatever sits in front of the service. Two ways in:
 * - `GET /api/metrics` on the service's own listener, only for `Authorization: Bearer
 *   <METRICS_TOKEN>` (404 while METRICS_TOKEN is unset), so no proxy that relays the path (or a
 *   TLS terminator on the same machine that makes every client look local) can expose it;
 * - a listener of its own on 127.0.0.1:METRICS_PORT (when set), which answers `GET /metrics`
 *   (and `/api/metrics`) without a token: only this machine reaches it, and no proxy is
 *   configured to relay it.
 */
export async function serveMetricsWithToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.setHeader('cache-control', 'no-store');
  if (!env.METRICS_TOKEN) return void sendFailure(res, notFound());
  if (!bearerMatches(req.headers.authorization, env.METRICS_TOKEN)) {
    return void sendFailure(res, unauthenticated('Authorization: send "Bearer <METRICS_TOKEN>"'));
  }
  await writeMetrics(res);
}

async function writeMetrics(res: ServerResponse): Promise<void> {
  let text: string;
  try {
    text = await registry.metrics();
  } catch {
    sendFailure(res, unavailable());
    return;
  }
  res.statusCode = 200;
  res.setHeader('content-type', registry.contentType);
  res.setHeader('cache-control', 'no-store');
  res.end(text);
}

/** The loopback metrics listener (METRICS_PORT); resolves once it listens. */
export async function openMetricsListener(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/metrics' || path === '/api/metrics')) {
      void writeMetrics(res);
      return;
    }
    res.setHeader('cache-control', 'no-store');
    sendFailure(res, notFound());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
