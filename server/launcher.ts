/**
 * `npm start`: provides the database, applies migrations, then serves on HOST:PORT.
 *
 * The Node server answers what needs no React itself (server/http/request-listener.ts: the
 * REST surface, stored files, health, metrics, public article pages) and hands the rest
 * (the console) to Next. PostgreSQL's lifecycle and signal handling are ours, not Next's:
 * SIGTERM or SIGINT stops accepting connections, lets in-flight requests finish (up to 15 s),
 * closes the pools and the conversion workers, then stops the embedded PostgreSQL.
 */
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import next from 'next';
import { env } from './env';
import { provideDatabase, untilDatabaseAnswers } from '../db/provide-database';
import { beginDraining, beginStarting, endStarting, onShutdown, runShutdownHooks } from './lifecycle';
import { appRoutePaths, warmUpRoutes } from './next-warm-up';
import { flushLog, logLine } from './log';
import { createRequestListener } from './http/request-listener';
import { openMetricsListener } from './http/metrics-endpoint';
import { observeRuntimeGauges } from './runtime-gauges';
import { appSecret } from './secrets';
import { configureRuntime, orm, startBackgroundWork } from './runtime';

// The service never phones home: Next's anonymous telemetry is off unless asked for.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

/** The project root: dist/launcher.mjs and server/launcher.ts both sit one level below it. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');

/** Set once the database is up, so a failed start stops the embedded cluster it started. */
let stopDatabase: (() => Promise<void>) | undefined;

async function main() {
  appSecret(); // a short or unreadable session secret stops the start before anything runs
  const db = await provideDatabase(
    { databaseUrl: env.DATABASE_URL, dataDir: env.dataDir, pooler: env.DATABASE_POOLER },
    (msg) => logLine({ level: 'notice', msg }),
  );
  stopDatabase = () => db.stop();
  // Before anything connects: the ORM and the statement pool, in this code and in the code Next loads.
  configureRuntime({ databaseUrl: db.url, poolerMode: db.mode });

  let stopping = false;
  // Declared before the signal handlers that read it; assigned once the listener exists.
  // eslint-disable-next-line prefer-const
  let server: http.Server | undefined;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logLine({ level: 'notice', msg: `${signal}: draining` });
    if (server && env.SHUTDOWN_DRAIN_MS > 0) {
      // Still serving, but failing health checks: the proxy stops sending new requests here
      // before the listener closes, so none is refused.
      beginDraining();
      await new Promise((resolve) => setTimeout(resolve, env.SHUTDOWN_DRAIN_MS));
    }
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server!.closeAllConnections(), 15_000);
      await closed;
      clearTimeout(force);
    }
    await runShutdownHooks();
    await db.stop();
    logLine({ level: 'notice', msg: 'stopped' });
    flushLog();
    process.exit(0);
  };
  // Registered before Next starts: a signal during start-up still stops PostgreSQL.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const app = next({ dev, dir: root, hostname: env.HOST, port: env.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();
  // Connect before the first request rather than during it (patiently: see provide-database.ts).
  await untilDatabaseAnswers(orm, (msg) => logLine({ level: 'notice', msg }));
  startBackgroundWork();
  observeRuntimeGauges();

  // Metrics on a loopback listener of their own (METRICS_PORT), outside what any proxy relays.
  const metricsServer = env.METRICS_PORT ? await openMetricsListener(env.METRICS_PORT) : undefined;
  if (metricsServer) {
    onShutdown(
      () =>
        new Promise<void>((resolve) => {
          metricsServer.closeAllConnections();
          metricsServer.close(() => resolve());
        }),
    );
    logLine({ level: 'notice', msg: `metrics on http://127.0.0.1:${env.METRICS_PORT}/metrics` });
  }

  server = http.createServer(createRequestListener((req, res) => handle(req, res)));
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 120_000;
  // Each open connection costs a descriptor and memory even when idle: past MAX_CONNECTIONS, new
  // ones are closed as they arrive rather than exhausting the process's file descriptors.
  server.maxConnections = env.MAX_CONNECTIONS;
  // Health answers 503 until the console's routes are loaded (next-warm-up.ts).
  beginStarting();
  // A port in use or an address this machine lacks is a failed start, not a hung process.
  await new Promise<void>((resolve, reject) => {
    server!.once('error', reject);
    server!.listen(env.PORT, env.HOST, () => {
      server!.off('error', reject);
      resolve();
    });
  });
  if (stopping) return;
  const address = server.address();
  const bound =
    typeof address === 'object' && address ? address : { address: env.HOST, port: env.PORT, family: 'IPv4' };
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  if (!dev) {
    // Any address answers on loopback too; a specific one is asked directly.
    const own = bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address === '::' ? '::1' : bound.address;
    await warmUpRoutes({ host: own, port: bound.port }, appRoutePaths(root), logLine);
  }
  endStarting();
  if (stopping) return;
  logLine({ level: 'notice', msg: `serving on http://${host}:${bound.port}`, host: bound.address, port: bound.port });
}

main().catch(async (err) => {
  logLine({ level: 'error', msg: 'failed to start', error: err instanceof Error ? err.message : String(err) });
  await runShutdownHooks();
  await stopDatabase?.().catch(() => undefined);
  flushLog();
  process.exit(1);
});
