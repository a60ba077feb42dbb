import type { StatementRunner } from '../../db/statements';
import type { ContentPool, Conversions } from '../content';
import type { AllowList } from '../media/address-policy';
import type { MediaStorage } from '../media/storage';
import type { MediaWork } from '../media/work';
import type { AnnouncePublicChange } from '../services/posts/public-changes';
import type { ReaderTally } from '../services/readers/reader-tally';
import type { Lifecycle } from './lifecycle';

/**
 * What a request's dependencies are made of (request-contexts.ts), in either of the process's
 * threads: the REST thread holds them all (AppParts); the console's thread (console-thread.ts)
 * builds its own pools, storage and purges, and reaches the REST thread's conversion pool
 * through a link (content/conversions-link.ts), so both threads' documents share one fair queue.
 */
export interface RequestParts {
  /** The one way to the data: prepared statements on the thread's pools (server/data/). */
  db: StatementRunner;
  /** Markdown conversions off the event loop, in the process's one pool. */
  content: Conversions;
  /** Where media files are stored (MEDIA_STORAGE: the filesystem under DATA_DIR, or S3). */
  storage: MediaStorage;
  /** ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS, parsed once. */
  allowList: AllowList;
  /** Download turns and memory, GIF conversion turns. */
  mediaWork: MediaWork;
  /** Tells the cache purges what public paths changed. */
  announce: AnnouncePublicChange;
}

/** The console thread's parts, handed to Next's copy of the modules by next-bridge.ts. */
export type ConsoleParts = RequestParts;

/**
 * The REST thread's long-lived parts, built once by the composition root (create-app.ts) and
 * handed to the HTTP server and the CLI. Every request's dependencies are made of these
 * (request-contexts.ts); no module finds them on its own.
 */
export interface AppParts extends RequestParts {
  /** The conversion pool itself (the console's thread reaches it through a link). */
  content: ContentPool;
  /** Reader beacons counted in memory until the next flush. */
  readers: ReaderTally;
  /** Starting, draining, and what runs at shutdown. */
  lifecycle: Lifecycle;
  /** The database pools' connections (metrics). */
  poolStats(): { total: number; idle: number; waiting: number };
}
