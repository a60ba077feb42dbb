import type { StatementRunner } from '../../db/statements';
import type { ContentPool } from '../content';
import type { AllowList } from '../media/address-policy';
import type { MediaStorage } from '../media/storage';
import type { MediaWork } from '../media/work';
import type { AnnouncePublicChange } from '../services/public-changes';
import type { ReaderTally } from '../services/reader-tally';
import type { Lifecycle } from './lifecycle';

/**
 * The process's long-lived parts, built once by the composition root (create-app.ts) and handed
 * to the HTTP server, the console (through next-bridge.ts) and the CLI. Every request's
 * dependencies are made of these (request-contexts.ts); no module finds them on its own.
 */
export interface AppParts {
  /** The one way to the data: prepared statements on the process's pools (server/data/). */
  db: StatementRunner;
  /** Markdown conversions off the event loop. */
  content: ContentPool;
  /** Where media files are stored (MEDIA_STORAGE: the filesystem under DATA_DIR, or S3). */
  storage: MediaStorage;
  /** ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS, parsed once. */
  allowList: AllowList;
  /** Download turns and memory, GIF conversion turns. */
  mediaWork: MediaWork;
  /** Tells the cache purges what public paths changed. */
  announce: AnnouncePublicChange;
  /** Reader beacons counted in memory until the next flush. */
  readers: ReaderTally;
  /** Starting, draining, and what runs at shutdown. */
  lifecycle: Lifecycle;
  /** The database pools' connections (metrics). */
  poolStats(): { total: number; idle: number; waiting: number };
}
