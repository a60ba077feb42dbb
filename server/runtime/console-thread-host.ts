/**
 * The console's thread, seen from the REST thread: started once, restarted when it dies, closed
 * at shutdown.
 *
 * Why a thread of its own: Next installs process-wide machinery in the isolate that loads it.
 * Its AsyncLocalStorage stores keep V8's promise hooks on for every promise of the process, and
 * it wraps setImmediate, process.nextTick, Date and parts of crypto to watch its renders. In one
 * isolate with the REST surface, every REST request paid for them: a lone GET /me cost 565 µs of
 * CPU against 319 µs with Next not loaded (bench-api `--connections 1`, 2026-11-28), and waited
 * 0.66 ms at the median instead of 0.28. A worker thread is an isolate of its own: Next's hooks
 * and wrappers stay in it, and its renders leave the REST thread's event loop free too.
 *
 * The thread listens on a Unix socket in a directory only this user can enter (mkdtemp, 0700);
 * the REST thread passes it the requests it does not answer itself (http/console-proxy.ts). It
 * builds its own statement pools, storage and purges, and reaches this thread's conversion pool
 * through a MessagePort (content/conversions-link.ts), so one fair queue serves both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { PoolerMode } from '../../db/connection-mode';
import { serveConversions, type Conversions } from '../content';
import type { logLine } from '../foundation/log';

/** What the console's thread is started with (its `workerData`). */
export interface ConsoleThreadData {
  socketPath: string;
  databaseUrl: string;
  poolerMode: PoolerMode;
  /** The project root (where `.next` is) and whether Next runs in development mode. */
  root: string;
  dev: boolean;
  /** The REST thread's conversion pool, through conversions-link.ts. */
  contentPort: MessagePort;
}

/** What the thread tells the REST thread. */
export type ConsoleThreadMessage = { type: 'ready' } | { type: 'failed'; error: string } | { type: 'closed' };

/** After an unexpected exit, the first restart waits this long, doubling up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;
/** A thread asked to close that has not within this long is terminated. */
const CLOSE_PATIENCE_MS = 10_000;

export interface ConsoleThread {
  /** The socket the thread listens on (http/console-proxy.ts). */
  readonly socketPath: string;
  /** Settles when the thread first serves; rejects when it fails to start. */
  readonly ready: Promise<void>;
  /** Asks the thread to finish (its last purges, its pools), then ends it. */
  close(): Promise<void>;
}

export function startConsoleThread(options: {
  /** The thread's module: dist/console-thread.mjs (server/console-thread.ts). */
  entry: URL;
  data: Omit<ConsoleThreadData, 'socketPath' | 'contentPort'>;
  content: Conversions;
  log: typeof logLine;
}): ConsoleThread {
  const dir = mkdtempSync(path.join(tmpdir(), 'author-console-'));
  const socketPath = path.join(dir, 'console.sock');
  let worker: Worker | null = null;
  let stopping = false;
  let started = false;
  let restartIn = RESTART_FIRST_MS;
  let restartTimer: NodeJS.Timeout | null = null;
  let settleReady!: (err?: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = (err) => (err ? reject(err) : resolve());
  });
  let onClosed: (() => void) | null = null;

  const start = () => {
    restartTimer = null;
    const { port1, port2 } = new MessageChannel();
    serveConversions(port1, options.content);
    const data: ConsoleThreadData = { ...options.data, socketPath, contentPort: port2 };
    const thread = new Worker(options.entry, { workerData: data, transferList: [port2] });
    worker = thread;
    thread.on('message', (message: ConsoleThreadMessage) => {
      if (message.type === 'ready') {
        restartIn = RESTART_FIRST_MS;
        if (!started) {
          started = true;
          settleReady();
        } else options.log({ level: 'notice', msg: 'the console thread serves again' });
      } else if (message.type === 'failed') {
        options.log({ level: 'error', msg: 'the console thread failed to start', error: message.error });
      } else if (message.type === 'closed') onClosed?.();
    });
    thread.on('error', (err) => {
      options.log({ level: 'error', msg: 'the console thread stopped on an error', error: String(err) });
    });
    thread.on('exit', (code) => {
      port1.close();
      if (worker === thread) worker = null;
      if (stopping) {
        onClosed?.();
        return;
      }
      if (!started) {
        settleReady(new Error(`the console thread ended before it served (exit code ${code})`));
        return;
      }
      // Console requests get 503 meanwhile (console-proxy.ts); the REST surface never stops.
      options.log({
        level: 'error',
        msg: 'the console thread ended; restarting it',
        exit_code: code,
        in_ms: restartIn,
      });
      restartTimer = setTimeout(start, restartIn);
      restartIn = Math.min(RESTART_MAX_MS, restartIn * 2);
    });
  };
  start();

  return {
    socketPath,
    ready,
    async close() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const thread = worker;
      if (thread) {
        const closed = new Promise<void>((resolve) => (onClosed = resolve));
        thread.postMessage({ type: 'close' });
        const patience = setTimeout(() => void thread.terminate(), CLOSE_PATIENCE_MS);
        await closed;
        clearTimeout(patience);
        await thread.terminate();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
