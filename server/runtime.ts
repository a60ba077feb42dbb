/**
 * The composition root: the one place where the process's long-lived parts are built from the
 * validated env and handed out — the ORM, the prepared-statement pool, media storage, the
 * outbound allow list, the background timers — and where one request's dependencies are put
 * together (`requestScope`). Everything else receives what it needs from here; the database
 * layer (db/) builds pools when asked and holds nothing.
 *
 * The parts live on globalThis: the launcher's bundle and the code Next bundles for the console
 * are separate module instances in one process (and Next's dev server evaluates modules again),
 * so module-level state would open a pool per copy. The ORM is the exception that proves the
 * rule: each copy of the entity classes needs an ORM that knows them, so there is one ORM per
 * copy, all on the one database.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { allEntities } from '../db/entities';
import { openOrm } from '../db/orm';
import { openStatementPool, type StatementPool, type StatementRunner } from '../db/statements';
import type { PoolerMode } from '../db/connection-mode';
import { createPurgeQueue, type PurgeQueue } from './cache-purge';

/** What a prepared-statement read runs on; the procedures get it from here, not from db/. */
export type { StatementRunner };
import { closeContentPool } from './content';
import { env } from './env';
import { onShutdown } from './lifecycle';
import { logLine } from './log';
import { cachePurges } from './metrics';
import { parseAllowList, type AllowList } from './media/address-policy';
import { createMediaStorage, mediaStorageConfigFromEnv, type MediaStorage } from './media/storage';
import { sweepOldWindows } from './services/limits';
import { readerFlushes } from './metrics';
import { flushReaderTally } from './services/reader-counts';
import { pruneReaderEventBatches } from './services/reader-events';
import { ReaderTally } from './services/reader-tally';
import type { MediaDeps } from './services/media';
import type { WriteContext } from './services/posts';
import { listenToPublicChanges } from './services/public-changes';
import { createRehoster } from './services/rehost';
import type { Authenticated } from './services/tokens';

interface Parts {
  databaseUrl?: string;
  /** Direct, or behind a transaction-mode pooler (db/connection-mode.ts), as the launcher found. */
  poolerMode?: PoolerMode;
  orms: WeakMap<object, Promise<MikroORM>>;
  /** Every ORM opened, of every module copy, to close them all. */
  opened: Promise<MikroORM>[];
  statements?: StatementPool;
  storage?: MediaStorage;
  allowList?: AllowList;
  background?: NodeJS.Timeout;
  readerTally?: ReaderTally;
  readerFlush?: NodeJS.Timeout;
  /** The flush in progress, awaited by the next one and by shutdown. */
  flushing?: Promise<void>;
  purges?: PurgeQueue | null;
}

const shared = globalThis as unknown as { __publishingRuntime?: Parts };

function parts(): Parts {
  if (!shared.__publishingRuntime) {
    shared.__publishingRuntime = { orms: new WeakMap(), opened: [] };
    shared.__publishingRuntime.purges = startCachePurges();
    onShutdown(closeRuntime);
  }
  return shared.__publishingRuntime;
}

/**
 * The launcher says which database it provided (DATABASE_URL, or the embedded cluster it
 * started) before anything connects; without it, DATABASE_URL is used.
 */
export function configureRuntime(config: { databaseUrl: string; poolerMode: PoolerMode }): void {
  parts().databaseUrl = config.databaseUrl;
  parts().poolerMode = config.poolerMode;
}

function databaseUrl(): string {
  const url = parts().databaseUrl ?? env.DATABASE_URL;
  if (!url) throw new Error('no database configured: start the service with `npm start`, which provides one');
  return url;
}

/** This module copy's ORM, connected on first use; a failed connection is tried again on the next call. */
export function orm(): Promise<MikroORM> {
  const { orms, opened } = parts();
  const existing = orms.get(allEntities);
  if (existing) return existing;
  const opening = openOrm(databaseUrl(), parts().poolerMode).catch((err: unknown) => {
    orms.delete(allEntities); // the database may be back by the next request
    throw err;
  });
  orms.set(allEntities, opening);
  opened.push(opening);
  return opening;
}

/** A fresh EntityManager: one per request or console action. */
export async function entityManager(): Promise<EntityManager> {
  return (await orm()).em.fork() as unknown as EntityManager;
}

/** Prepared statements for the hot reads (db/statements.ts). */
export function statements(): StatementRunner {
  const p = parts();
  p.statements ??= openStatementPool(databaseUrl(), {
    max: env.STATEMENT_POOL_SIZE,
    mode: p.poolerMode,
    onUnnamed: () =>
      logLine({
        level: 'notice',
        msg: 'a named statement was refused as only a transaction-mode pooler refuses it: statements are sent unnamed from now on (set DATABASE_POOLER to say so at start)',
      }),
  });
  return p.statements.runner;
}

/** The statement pool's connections, if it was opened (metrics). */
export function statementPoolStats(): { total: number; idle: number; waiting: number } | null {
  return shared.__publishingRuntime?.statements?.stats() ?? null;
}

/** Where media files are stored (MEDIA_STORAGE: the filesystem under DATA_DIR, or S3). */
export function mediaStorage(): MediaStorage {
  const p = parts();
  p.storage ??= createMediaStorage(mediaStorageConfigFromEnv(env));
  return p.storage;
}

/** ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS, parsed once (env.ts refused a malformed entry at start). */
function outboundAllowList(): AllowList {
  const p = parts();
  p.allowList ??= parseAllowList(env.ALLOWED_PRIVATE_ADDRESSES, env.ALLOWED_OUTBOUND_PORTS);
  return p.allowList;
}

/** What storing media needs, on `em`. */
export function mediaDeps(em: EntityManager): MediaDeps {
  return { em, storage: mediaStorage(), allowList: outboundAllowList() };
}

/** What an article write needs: `em`, the prepared statements, the author, and a rehoster storing into their account. */
export function writeContext(em: EntityManager, auth: Authenticated): WriteContext {
  const rehoster = createRehoster(mediaDeps(em), auth.account, {
    log: (line) => logLine({ ...line, level: 'error' }),
  });
  return { em, db: statements(), accountId: auth.account.id, rehoster, tokenId: auth.tokenId };
}

/** One author's request that changes something: its EntityManager and the dependencies built on it. */
export interface RequestScope {
  em: EntityManager;
  write: WriteContext;
  media: MediaDeps;
}

export async function requestScope(auth: Authenticated): Promise<RequestScope> {
  const em = await entityManager();
  return { em, write: writeContext(em, auth), media: mediaDeps(em) };
}

/**
 * Work that runs beside the requests, started once by the launcher: minute windows are
 * useless after their minute, so one sweep every five minutes keeps `rate_windows` small, and
 * prunes operator batches past their replay window.
 */
export function startBackgroundWork(): void {
  const p = parts();
  if (p.background) return;
  p.background = setInterval(() => {
    entityManager()
      .then((em) => sweepOldWindows(em))
      .catch(() => {});
    pruneReaderEventBatches(statements()).catch(() => {});
  }, 5 * 60_000);
  p.background.unref();
  // Loads today's salt at once, so the first readers are hashed on arrival.
  void flushReaderCounts();
  p.readerFlush = setInterval(() => void flushReaderCounts(), READER_FLUSH_MS);
  p.readerFlush.unref();
}

/** Beacons counted in memory since the last flush (server/http/reader-beacon.ts records into it). */
export function readerTally(): ReaderTally {
  const p = parts();
  p.readerTally ??= new ReaderTally({ readersPerAddress: env.READERS_PER_ADDRESS });
  return p.readerTally;
}

/** At most this long between a beacon and its count in PostgreSQL (contract: visible within 10 s). */
const READER_FLUSH_MS = 5_000;

/**
 * One flush of the tally (services/reader-counts.ts: salts, forgetting past days, the write);
 * a failed one keeps its beacons for the next. Flushes never overlap.
 */
function flushReaderCounts(): Promise<void> {
  const p = parts();
  const previous = p.flushing ?? Promise.resolve();
  const run = previous.then(async () => {
    try {
      if ((await flushReaderTally(statements(), readerTally(), Date.now())) > 0) readerFlushes.inc({ result: 'ok' });
    } catch (err) {
      readerFlushes.inc({ result: 'failed' });
      logLine({ level: 'error', msg: 'reader counts flush failed', error: String(err) });
    }
  });
  p.flushing = run;
  return run;
}

/**
 * Shared caches named by CACHE_PURGE_URLS are purged of every public path the domain announces
 * as changed (server/services/public-changes.ts), by every caller: REST, console, CLI. Each
 * outcome is a log line (through `write`: the CLI keeps stdout for its result) and a count in
 * `cache_purges_total{result}`. Null when no cache is configured.
 */
export function startCachePurges(write: typeof logLine = logLine): PurgeQueue | null {
  if (env.CACHE_PURGE_URLS.length === 0) return null;
  const queue = createPurgeQueue({
    caches: env.CACHE_PURGE_URLS,
    onOutcome: (outcome) => {
      cachePurges.inc({ result: outcome.result });
      const failed = outcome.result === 'failed' || outcome.result === 'dropped';
      write({ level: failed ? 'error' : 'info', msg: 'cache purge', ...outcome });
    },
  });
  listenToPublicChanges((paths) => queue.purge(paths));
  return queue;
}

/** Stops the timers and closes the conversion workers and both database pools (on SIGTERM). */
async function closeRuntime(): Promise<void> {
  const p = shared.__publishingRuntime;
  if (!p) return;
  clearInterval(p.background);
  clearInterval(p.readerFlush);
  // The last beacons are written before the pools close (a crash loses at most one interval).
  if (p.readerTally && p.readerTally.size > 0) await flushReaderCounts().catch(() => {});
  else await p.flushing?.catch(() => {});
  shared.__publishingRuntime = undefined;
  // Purges of the last changes go out before the process ends (bounded: a cache may be down).
  await p.purges?.settled(3000);
  await Promise.allSettled([
    closeContentPool(),
    p.statements?.close(),
    ...p.opened.map((opening) => opening.then((ready) => ready.close(true))),
  ]);
}
