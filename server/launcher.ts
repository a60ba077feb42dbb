/**
 * `npm start`: provides the database, applies migrations, then serves on HOST:PORT.
 *
 * The Node server answers what needs no React itself (server/http/request-listener.ts: the
 * REST surface, stored files, health, metrics, public article pages) and hands the rest
 * (the console) to Next, which runs in a thread of its own (runtime/console-thread-host.ts says
 * why). PostgreSQL's lifecycle and signal handling are ours, not Next's:
 * SIGTERM or SIGINT stops accepting connections, lets in-flight requests finish (up to 15 s),
 * closes the pools and the conversion workers, then stops the embedded PostgreSQL.
 */
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env } from './foundation/env';
import { provideDatabase, untilDatabaseAnswers } from '../db/provide-database';
import { statement } from '../db/statements';
import { appRoutePaths, warmUpRoutes } from './runtime/next-warm-up';
import { flushLog, logLine } from './foundation/log';
import { createRequestListener } from './http/request-listener';
import { openMetricsListener } from './http/metrics-endpoint';
import { observeRuntimeGauges } from './runtime/runtime-gauges';
import { appSecret } from './foundation/secrets';
import { createApp, outboundAllowList, type App } from './runtime/create-app';
import { startConsoleThread } from './runtime/console-thread-host';
import { noConsole, proxyToConsole } from './http/console-proxy';
import { answerClientError, capConnectionsPerAddress } from './http/connection-guards';
import { startTracing, type Tracing } from './runtime/tracing-sdk';

// The service never phones home: Next's anonymous telemetry is off unless asked for.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

/** The project root: dist/launcher.mjs and server/launcher.ts both sit one level below it. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dev = process.argv.includes('--dev');

/** Set once the database is up, so a failed start stops the embedded cluster it started. */
let stopDatabase: (() => Promise<void>) | undefined;
/** Set once the parts are built, so a failed start closes them. */
let built: App | undefined;
/** This thread's trace SDK, when traces are on: its last spans are sent before the process exits. */
let tracing: Tracing | undefined;

const FIRST_CONNECTION = statement('launcher_first_connection', 'SELECT 1');

async function main() {
  appSecret(); // a short or unreadable session secret stops the start before anything runs
  outboundAllowList(env); // so does a malformed ALLOWED_PRIVATE_ADDRESSES or ALLOWED_OUTBOUND_PORTS
  // Traces on (OTEL_* variables, README "Traces"): the SDK before the first span; off, not loaded.
  tracing = await startTracing('http');
  const db = await provideDatabase(
    { databaseUrl: env.DATABASE_URL, dataDir: env.dataDir, pooler: env.DATABASE_POOLER },
    (msg) => logLine({ level: 'notice', msg }),
  );
  stopDatabase = () => db.stop();
  // The process's parts, built once; the console's thread builds its own and reaches this
  // thread's conversion pool through a link.
  const parts = createApp({ databaseUrl: db.url, poolerMode: db.mode });
  built = parts;
  // CONSOLE=off (an instance for the API only): no Next thread, and console paths answer 404.
  const consoleThread =
    env.CONSOLE === 'on'
      ? startConsoleThread({
          entry: new URL(
            import.meta.url.endsWith('.ts') ? './console-thread.ts' : './console-thread.mjs',
            import.meta.url,
          ),
          data: { databaseUrl: db.url, poolerMode: db.mode, root, dev },
          content: parts.content,
          log: logLine,
        })
      : undefined;
  const toConsole = consoleThread ? proxyToConsole(consoleThread.socketPath) : noConsole();
  // After the listener has closed (no request left for it), before the parts close (its
  // conversions use this thread's pool).
  parts.lifecycle.onShutdown(async () => {
    await consoleThread?.close();
    toConsole.close();
  });

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
      parts.lifecycle.beginDraining();
      await new Promise((resolve) => setTimeout(resolve, env.SHUTDOWN_DRAIN_MS));
    }
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server!.closeAllConnections(), 15_000);
      await closed;
      clearTimeout(force);
    }
    await parts.lifecycle.runShutdownHooks();
    await parts.close();
    await tracing?.shutdown();
    await db.stop();
    logLine({ level: 'notice', msg: 'stopped' });
    flushLog();
    process.exit(0);
  };
  // Registered before Next starts: a signal during start-up still stops PostgreSQL.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await consoleThread?.ready;
  // Connect before the first request rather than during it (patiently: see provide-database.ts).
  await untilDatabaseAnswers(
    () => parts.db.run(FIRST_CONNECTION, []),
    (msg) => logLine({ level: 'notice', msg }),
  );
  parts.startBackgroundWork();
  observeRuntimeGauges(parts);

  // Metrics on a loopback listener of their own (METRICS_PORT), outside what any proxy relays.
  const metricsServer = env.METRICS_PORT ? await openMetricsListener(env.METRICS_PORT) : undefined;
  if (metricsServer) {
    parts.lifecycle.onShutdown(
      () =>
        new Promise<void>((resolve) => {
          metricsServer.closeAllConnections();
          metricsServer.close(() => resolve());
        }),
    );
    logLine({ level: 'notice', msg: `metrics on http://127.0.0.1:${env.METRICS_PORT}/metrics` });
  }

  server = http.createServer(
    {
      keepAliveTimeout: 5_000,
      // Slow clients (README, "Slow or abusive clients"): headers within HEADERS_TIMEOUT_MS, the
      // whole request within REQUEST_TIMEOUT_MS (an upload has a rate floor instead: see
      // answerClientError), both answered 408. Node compares them with each open request every
      // `connectionsCheckingInterval` (30 s by default, which made a 60 s headers timeout 90 s).
      headersTimeout: Math.min(env.HEADERS_TIMEOUT_MS, env.REQUEST_TIMEOUT_MS),
      requestTimeout: env.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    createRequestListener(parts, toConsole),
  );
  server.on('clientError', answerClientError);
  // Each open connection costs a descriptor and memory even when idle: past MAX_CONNECTIONS, new
  // ones are closed as they arrive rather than exhausting the process's file descriptors; past
  // MAX_CONNECTIONS_PER_ADDRESS from one client, so are that client's (proxies exempt).
  server.maxConnections = env.MAX_CONNECTIONS;
  capConnectionsPerAddress(server, {
    cap: env.MAX_CONNECTIONS_PER_ADDRESS,
    trustedProxies: env.TRUSTED_PROXIES,
    ipv6Prefix: env.READER_IPV6_PREFIX,
  });
  // Health answers 503 until the console's routes are loaded (next-warm-up.ts).
  parts.lifecycle.beginStarting();
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
  if (consoleThread && !dev) {
    // Any address answers on loopback too; a specific one is asked directly.
    const own = bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address === '::' ? '::1' : bound.address;
    await warmUpRoutes({ host: own, port: bound.port }, appRoutePaths(root), logLine);
  }
  parts.lifecycle.endStarting();
  if (stopping) return;
  logLine({ level: 'notice', msg: `serving on http://${host}:${bound.port}`, host: bound.address, port: bound.port });
}

/** How often Node looks for requests past their headers or request timeout: the most they overrun it by. */
const TIMEOUT_CHECK_MS = 1_000;

main().catch(async (err) => {
  logLine({ level: 'error', msg: 'failed to start', error: err instanceof Error ? err.message : String(err) });
  await built?.lifecycle.runShutdownHooks();
  await built?.close().catch(() => undefined);
  await stopDatabase?.().catch(() => undefined);
  await tracing?.shutdown();
  flushLog();
  process.exit(1);
});
