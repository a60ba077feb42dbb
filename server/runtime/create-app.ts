/**
 * The composition root: the one place where the process's long-lived parts are built from the
 * validated env — the statement pools, the conversion pool, media storage, the outbound allow
 * list, the media work limits, the cache purges, the reader tally — and closed again. The
 * launcher builds them once (`createApp`) and hands them to the HTTP server; the console's
 * thread builds its own (`createConsoleParts`: pools, storage and purges of its own, the
 * conversion pool through a link) and hands them to Next through next-bridge.ts; the CLI builds
 * its own. Nothing else builds a part.
 */
import type { PoolerMode } from '../../db/connection-mode';
import { openStatementPool } from '../../db/statements';
import { sweepOldWindows } from '../data/usage-counters';
import type { MessagePort } from 'node:worker_threads';
import { ContentPool, contentPoolSettings, conversionsOverPort } from '../content';
import { createPurgeQueue, type PurgeQueue } from './cache-purge';
import { env } from '../foundation/env';
import { logLine } from '../foundation/log';
import { cachePurges, readerFlushes } from '../foundation/metrics';
import { parseAllowList, type AllowList } from '../media/address-policy';
import { createMediaStorage, mediaStorageConfigFromEnv } from '../media/storage';
import { createMediaWork } from '../media/work';
import { publicChangeAnnouncer } from '../services/posts/public-changes';
import { flushReaderTally } from '../services/readers/reader-counts';
import { pruneReaderEventBatches } from '../services/readers/reader-events';
import { ReaderTally } from '../services/readers/reader-tally';
import { publishDueArticles } from '../services/posts/scheduled-publishing';
import { Lifecycle } from './lifecycle';
import type { AppParts, ConsoleParts } from './parts';

export interface App extends AppParts {
  /** Sweeps and the reader flush, every few seconds or minutes, until `close`. */
  startBackgroundWork(): void;
  /**
   * Stops the timers, writes the last beacons, waits for the last purges (at most
   * `purgePatienceMs`, 3 s by default: a cache may be down), closes every pool.
   */
  close(opts?: { purgePatienceMs?: number }): Promise<void>;
}

export interface AppConfig {
  /** DATABASE_URL, or the embedded cluster the launcher started. */
  databaseUrl: string;
  poolerMode: PoolerMode;
  /** Where purge outcomes are written (the CLI keeps stdout for its result). */
  write?: typeof logLine;
}

/**
 * ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS as the outbound fetches apply them. The
 * launcher calls this first, so a malformed entry stops the start (the message names it)
 * before a database is started.
 */
export function outboundAllowList(settings: {
  ALLOWED_PRIVATE_ADDRESSES: string;
  ALLOWED_OUTBOUND_PORTS?: string;
}): AllowList {
  try {
    return parseAllowList(settings.ALLOWED_PRIVATE_ADDRESSES, settings.ALLOWED_OUTBOUND_PORTS);
  } catch (err) {
    throw new Error(`Invalid environment: ${(err as Error).message}`);
  }
}

/** At most this long between a beacon and its count in PostgreSQL (contract: visible within 10 s). */
const READER_FLUSH_MS = 5_000;
/** Minute windows are useless after their minute; operator batches past their replay window. */
const SWEEP_MS = 5 * 60_000;

/**
 * Connections of the console thread's statement pool (and as many again for its transactions):
 * a maintainer's pages and actions, a handful at a time, need few; the REST thread keeps
 * STATEMENT_POOL_SIZE.
 */
const CONSOLE_POOL_SIZE = 4;

/** The parts each thread builds for itself: statement pools, media storage and work, cache purges. */
function ownParts(config: AppConfig, poolSize: number) {
  const write = config.write ?? logLine;
  const statements = openStatementPool(config.databaseUrl, {
    max: poolSize,
    mode: config.poolerMode,
    onUnnamed: () =>
      write({
        level: 'notice',
        msg: 'a named statement was refused as only a transaction-mode pooler refuses it: statements are sent unnamed from now on (set DATABASE_POOLER to say so at start)',
      }),
  });
  const purges = startCachePurges(write);
  const mediaWork = createMediaWork({
    downloadsInFlight: env.MEDIA_DOWNLOADS_IN_FLIGHT,
    downloadMemoryBytes: env.MEDIA_DOWNLOAD_MEMORY_MB * 1024 * 1024,
    gifConversionsInFlight: env.GIF_CONVERSIONS_IN_FLIGHT,
    ffmpegPath: env.FFMPEG_PATH,
  });
  const parts = {
    db: statements.runner,
    storage: createMediaStorage(mediaStorageConfigFromEnv(env)),
    allowList: outboundAllowList(env),
    mediaWork,
    announce: publicChangeAnnouncer(purges ? (paths) => purges.purge(paths) : undefined),
  };
  return { parts, statements, purges, mediaWork, write };
}

/**
 * The console thread's parts: pools, storage, media work and purges of its own, and the REST
 * thread's conversion pool through `content` (a link: content/conversions-link.ts). `close`
 * waits for its last purges and closes its pools.
 */
export function createConsoleParts(
  config: AppConfig & { contentPort: MessagePort },
): ConsoleParts & { close(opts?: { purgePatienceMs?: number }): Promise<void> } {
  const { parts, statements, purges } = ownParts(config, CONSOLE_POOL_SIZE);
  const content = conversionsOverPort(config.contentPort);
  return {
    ...parts,
    content,
    async close(opts = {}) {
      await purges?.settled(opts.purgePatienceMs ?? 3000);
      await statements.close();
      content.close();
    },
  };
}

export function createApp(config: AppConfig): App {
  const { parts: own, statements, purges, mediaWork, write } = ownParts(config, env.STATEMENT_POOL_SIZE);
  const parts: AppParts = {
    ...own,
    content: new ContentPool(contentPoolSettings()),
    readers: new ReaderTally({ readersPerAddress: env.READERS_PER_ADDRESS }),
    lifecycle: new Lifecycle(),
    poolStats: () => statements.stats(),
  };

  const timers: NodeJS.Timeout[] = [];
  /** The flush in progress, awaited by the next one and by `close`. */
  let flushing: Promise<void> = Promise.resolve();

  /** One flush of the tally (salts, forgetting past days, the write); a failed one keeps its beacons. */
  const flushReaderCounts = (): Promise<void> => {
    flushing = flushing.then(async () => {
      try {
        if ((await flushReaderTally(parts.db, parts.readers, Date.now())) > 0) readerFlushes.inc({ result: 'ok' });
      } catch (err) {
        readerFlushes.inc({ result: 'failed' });
        write({
          level: 'error',
          msg: 'reader counts flush failed',
          error: String(err),
          // Held for the next flush up to the tally's capacity; past it, lost (since the start).
          held: parts.readers.size,
          lost: parts.readers.lostToFailedFlushes,
        });
      }
    });
    return flushing;
  };

  /** The scheduled-publishing pass in progress, awaited by the next one and by `close`. */
  let publishing: Promise<void> = Promise.resolve();
  const publishDue = (): Promise<void> => {
    publishing = publishing.then(async () => {
      try {
        for (const { postId, ...done } of await publishDueArticles(parts))
          write({ level: 'notice', msg: 'scheduled publish', post_id: postId, ...done });
      } catch (err) {
        write({ level: 'error', msg: 'scheduled publishing failed', error: String(err) });
      }
    });
    return publishing;
  };

  return {
    ...parts,
    startBackgroundWork() {
      if (timers.length > 0) return;
      write({
        level: 'info',
        msg: 'gif conversion uses ffmpeg',
        path: mediaWork.ffmpeg.path,
        source: mediaWork.ffmpeg.source,
      });
      const sweep = setInterval(() => {
        sweepOldWindows(parts.db).catch(() => {});
        pruneReaderEventBatches(parts.db).catch(() => {});
      }, SWEEP_MS);
      // Loads today's salt at once, so the first readers are hashed on arrival.
      void flushReaderCounts();
      const flush = setInterval(() => void flushReaderCounts(), READER_FLUSH_MS);
      // Schedules are rows (services/posts/scheduled-publishing.ts): any instance publishes a due one, once.
      const scheduled = setInterval(() => void publishDue(), env.SCHEDULED_PUBLISH_POLL_MS);
      for (const timer of [sweep, flush, scheduled]) {
        timer.unref();
        timers.push(timer);
      }
    },
    async close(opts = {}) {
      for (const timer of timers.splice(0)) clearInterval(timer);
      // The last beacons are written before the pools close (a crash loses at most one interval).
      if (parts.readers.size > 0) await flushReaderCounts();
      else await flushing;
      await publishing;
      // Purges of the last changes go out before the process ends (bounded: a cache may be down).
      await purges?.settled(opts.purgePatienceMs ?? 3000);
      await Promise.allSettled([parts.content.close(), statements.close()]);
    },
  };
}

/**
 * Shared caches named by CACHE_PURGE_URLS are purged of every public path the services announce
 * as changed, by every caller: REST, console, CLI. Each outcome is a log line (through `write`)
 * and a count in `cache_purges_total{result}`. Null when no cache is configured.
 */
function startCachePurges(write: typeof logLine): PurgeQueue | null {
  if (env.CACHE_PURGE_URLS.length === 0) return null;
  return createPurgeQueue({
    caches: env.CACHE_PURGE_URLS,
    onOutcome: (outcome) => {
      cachePurges.inc({ result: outcome.result });
      const failed = outcome.result === 'failed' || outcome.result === 'dropped';
      write({ level: failed ? 'error' : 'info', msg: 'cache purge', ...outcome });
    },
  });
}
