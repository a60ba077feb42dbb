/**
 * `npm start`: provides the database, applies migrations, then serves Next (API, media,
 * console, public pages) on PORT (CONTRACT.md "Scripts").
 *
 * Kept outside Next so PostgreSQL's lifecycle and signal handling are ours (NOTES.md (b)):
 * SIGTERM stops accepting connections, lets in-flight requests finish (up to 15 s), closes
 * the pool and the conversion workers, then stops the embedded PostgreSQL cleanly.
 * Every response gets an X-Request-Id, and one JSON log line (never a header value).
 */
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import next from 'next';
import { env } from './env';
import { provideDatabase } from './database';
import { runShutdownHooks } from './lifecycle';
import { logLine } from './log';
import { takeMediaRequest } from './http/media-node';

// The service never phones home: Next's anonymous telemetry is off unless asked for.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

async function main() {
  const db = await provideDatabase((msg) => logLine({ level: 'notice', msg }));
  process.env.DATABASE_URL = db.url; // read by the app's ORM (db/orm.ts) inside Next

  const app = next({ dev, dir: root, hostname: '0.0.0.0', port: env.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      logLine({
        level: 'info',
        msg: 'request',
        method: req.method,
        route: routeOf(req.url ?? '/'),
        status: res.statusCode,
        duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        request_id: requestId,
      });
    });
    // Stored files are answered before Next, which drops Content-Length from route handlers.
    if (takeMediaRequest(req, res)) return;
    handle(req, res).catch((err) => {
      logLine({ level: 'error', msg: 'unhandled', error: String(err), request_id: requestId });
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: 'Internal server error' }));
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 120_000;

  await new Promise<void>((resolve) => server.listen(env.PORT, '0.0.0.0', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  logLine({ level: 'notice', msg: `serving on http://127.0.0.1:${port}`, port });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logLine({ level: 'notice', msg: `${signal}: draining` });
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 15_000);
    await closed;
    clearTimeout(force);
    await runShutdownHooks();
    await db.stop();
    logLine({ level: 'notice', msg: 'stopped' });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Paths with their ids masked, so logs group by route and carry no cursor or query. */
function routeOf(url: string): string {
  const pathname = url.split('?')[0] ?? '/';
  return pathname.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{id}');
}

main().catch(async (err) => {
  logLine({ level: 'error', msg: 'failed to start', error: err instanceof Error ? err.message : String(err) });
  await runShutdownHooks();
  process.exit(1);
});
