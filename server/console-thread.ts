/**
 * The console's thread (runtime/console-thread-host.ts says why it is one): builds its own parts,
 * hands them to Next's copy of the modules, and serves Next (the console and the home page) on
 * the Unix socket the REST thread passes those requests to (http/console-proxy.ts).
 *
 * It keeps no state the REST thread needs: sessions, limits and articles live in PostgreSQL,
 * media in storage, conversions in the REST thread's pool. So when it dies the host starts
 * another, and nothing is lost but the requests it was answering.
 */
import { unlinkSync } from 'node:fs';
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import next from 'next';
import { env } from './foundation/env';
import { flushLog } from './foundation/log';
import { createConsoleParts } from './runtime/create-app';
import type { ConsoleThreadData, ConsoleThreadMessage } from './runtime/console-thread-host';
import { handPartsToNext } from './runtime/next-bridge';
import { startTracing } from './runtime/tracing-sdk';

const data = workerData as ConsoleThreadData;
const tell = (message: ConsoleThreadMessage) => parentPort!.postMessage(message);

/**
 * Idle connections from the REST thread are kept this long: longer than its agent keeps one idle
 * (it reads this server's `Keep-Alive: timeout` and lets go a second before), so no request is
 * sent on a connection this end is closing.
 */
const KEEP_ALIVE_MS = 60_000;

async function main() {
  // Traces on: this thread's SDK, before Next loads (Next records its own spans through it, under
  // the REST thread's request span that the proxied request names in its `traceparent`).
  const tracing = await startTracing('console');
  const parts = createConsoleParts({
    databaseUrl: data.databaseUrl,
    poolerMode: data.poolerMode,
    contentPort: data.contentPort,
  });
  // Before Next loads anything: the console's modules take their parts from the bridge.
  handPartsToNext(parts);
  const app = next({ dev: data.dev, dir: data.root, hostname: env.HOST, port: env.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  // The REST thread applies the headers and request timeouts to the client; this hop has none.
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS, requestTimeout: 0 }, (req, res) => {
    void handle(req, res);
  });
  try {
    unlinkSync(data.socketPath); // a socket left by a thread that died
  } catch {
    /* none */
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(data.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  parentPort!.on('message', (message: { type: string }) => {
    if (message.type !== 'close') return;
    // The REST thread has stopped taking requests and waited for those in flight.
    server.close();
    server.closeAllConnections();
    void parts
      .close()
      .catch(() => undefined)
      .then(() => tracing?.shutdown())
      .then(() => {
        flushLog();
        tell({ type: 'closed' });
      });
  });
  tell({ type: 'ready' });
}

main().catch((err: unknown) => {
  tell({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
  flushLog();
  process.exit(1);
});
