import { createHmac, randomBytes } from 'node:crypto';

/**
 * What a reader's browser loaded, held in memory until the next flush (reader-counts.ts writes
 * it in one statement). Pure: no database, no HTTP.
 *
 * A reader is never stored as such: each beacon becomes a hash of (address, user agent,
 * article, kind) keyed with the secret salt of its UTC day. The same reader on the same day
 * gives the same hash on every instance (the salt is shared through PostgreSQL), so counting
 * only new hashes counts a reader once per article, kind and day; once the day's salt is
 * deleted, nothing links a hash to an address any more.
 */
export type ReaderKind = 'open' | 'read' | 'complete';

export interface Beacon {
  address: string;
  userAgent: string;
  publicId: string;
  kind: ReaderKind;
  /** Epoch milliseconds of arrival; its UTC day is the day counted. */
  at: number;
}

/** `YYYY-MM-DD` of `ms` in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Midnight. A beacon counts on the UTC day it arrived, hashed with that day's salt, even when
 * it is flushed after midnight: the day's salt and seen hashes stay in PostgreSQL for an hour
 * into the next day (FORGET_AFTER_MS), so a reader seen by any instance in the last seconds of
 * a day is still recognised when those beacons are flushed. An instance flushes a day's
 * beacons only during the first half of that hour (LATE_FLUSH_MS) and drops the ones still
 * held after it (the database away for half an hour): a beacon is never written once its
 * day's hashes may be gone, so it can be lost then but never counted twice.
 */
const LATE_FLUSH_MS = 30 * 60_000;
const FORGET_AFTER_MS = 60 * 60_000;

/** The oldest day whose beacons an instance still hashes and flushes at `now`. */
export function oldestDayFlushed(now: number): string {
  return utcDay(now - LATE_FLUSH_MS);
}

/** The oldest day whose salt and seen hashes are kept in PostgreSQL at `now`. */
export function oldestDayKept(now: number): string {
  return utcDay(now - FORGET_AFTER_MS);
}

/** A fresh secret for a day: 32 random bytes. */
export function newSalt(): string {
  return randomBytes(32).toString('base64url');
}

/** 128 bits of HMAC-SHA256: collisions are out of reach, and the input cannot be recovered without the salt. */
export function readerHash(salt: string, b: Pick<Beacon, 'address' | 'userAgent' | 'publicId' | 'kind'>): string {
  return createHmac('sha256', salt)
    .update(`${b.address}\n${b.userAgent}\n${b.publicId}\n${b.kind}`)
    .digest('base64url')
    .slice(0, 22);
}

/**
 * Crawlers, link-preview fetchers and HTTP libraries: they rarely load images, and when they
 * do they are not readers. Matched on the user agent, case-insensitively; an empty one counts
 * as a bot too.
 */
const BOT_USER_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|facebookexternalhit|facebookcatalog|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|skypeuripreview|bitlybot|nuzzel|discordbot|google-read-aloud|lighthouse|pagespeed|preview|curl\/|wget\/|python-|python\/|httpx|aiohttp|go-http-client|java\/|okhttp|node-fetch|undici|axios|libwww|httpclient|scrapy|phantomjs|feedfetcher|feedly|inoreader|monitor|uptime|checker|^node$/i;

export function isKnownBot(userAgent: string | undefined): boolean {
  return !userAgent || userAgent.trim() === '' || BOT_USER_AGENT.test(userAgent);
}

/** One flush's worth: parallel arrays, as the flush statement takes them (unnest). */
export interface TallyBatch {
  days: string[];
  hashes: string[];
  publicIds: string[];
  kinds: ReaderKind[];
}

interface Seen {
  day: string;
  hash: string;
  publicId: string;
  kind: ReaderKind;
}

export type RecordOutcome = 'pending' | 'duplicate' | 'dropped';

/**
 * Distinct hashes since the last flush, plus the beacons of a day whose salt this instance
 * does not know yet (only until the salt is loaded, normally the first seconds after start).
 * Bounded: past `capacity` entries new beacons are dropped (and said so) rather than memory
 * growing while the database is away.
 */
export class ReaderTally {
  private pending = new Map<string, Seen>();
  private unsalted: Beacon[] = [];
  private readonly salts = new Map<string, string>();
  /** The `oldestDayKept` this instance last deleted the older days' salts and hashes for. */
  forgottenBefore: string | undefined;

  constructor(private readonly capacity = 500_000) {}

  get size(): number {
    return this.pending.size + this.unsalted.length;
  }

  record(beacon: Beacon): RecordOutcome {
    const day = utcDay(beacon.at);
    const salt = this.salts.get(day);
    if (this.size >= this.capacity) return 'dropped';
    if (salt === undefined) {
      this.unsalted.push(beacon);
      return 'pending';
    }
    return this.add(day, salt, beacon);
  }

  private add(day: string, salt: string, beacon: Beacon): RecordOutcome {
    const hash = readerHash(salt, beacon);
    const key = `${day}|${hash}`;
    if (this.pending.has(key)) return 'duplicate';
    this.pending.set(key, { day, hash, publicId: beacon.publicId, kind: beacon.kind });
    return 'pending';
  }

  /** Days whose salt is needed now: those of waiting beacons still flushed (oldestDayFlushed), and today. */
  daysNeedingSalt(now: number): string[] {
    const oldest = oldestDayFlushed(now);
    const days = new Set(this.unsalted.map((b) => utcDay(b.at)).filter((d) => d >= oldest));
    days.add(utcDay(now));
    return [...days].filter((d) => !this.salts.has(d));
  }

  /**
   * Learns a day's salt (loaded from PostgreSQL) and forgets the salts of days before `oldest`:
   * beacons waiting for a salt that is known now are hashed; those of a day before `oldest`
   * whose salt is unknown cannot be any more and are dropped (returned count).
   */
  setSalt(day: string, salt: string, oldest: string): number {
    this.salts.set(day, salt);
    return this.forgetBefore(oldest);
  }

  private forgetBefore(oldest: string): number {
    for (const d of this.salts.keys()) if (d < oldest) this.salts.delete(d);
    const waiting = this.unsalted;
    this.unsalted = [];
    let dropped = 0;
    for (const beacon of waiting) {
      const d = utcDay(beacon.at);
      const s = this.salts.get(d);
      if (d < oldest) dropped++;
      else if (s !== undefined) this.add(d, s, beacon);
      else this.unsalted.push(beacon);
    }
    for (const [key, seen] of this.pending) if (seen.day < oldest) this.pending.delete(key);
    return dropped;
  }

  /**
   * Everything hashed so far, handed to a flush; the tally starts empty again. Each entry keeps
   * the day it arrived on. Entries, waiting beacons and salts of days before `oldest` (see
   * oldestDayFlushed) are dropped first: their day's hashes may be gone from PostgreSQL.
   */
  take(oldest?: string): TallyBatch {
    if (oldest !== undefined) this.forgetBefore(oldest);
    const batch: TallyBatch = { days: [], hashes: [], publicIds: [], kinds: [] };
    for (const s of this.pending.values()) {
      batch.days.push(s.day);
      batch.hashes.push(s.hash);
      batch.publicIds.push(s.publicId);
      batch.kinds.push(s.kind);
    }
    this.pending = new Map();
    return batch;
  }

  /** A batch whose flush failed comes back, to be tried with the next one. */
  giveBack(batch: TallyBatch): void {
    for (let i = 0; i < batch.hashes.length; i++) {
      const key = `${batch.days[i]}|${batch.hashes[i]}`;
      if (!this.pending.has(key))
        this.pending.set(key, {
          day: batch.days[i]!,
          hash: batch.hashes[i]!,
          publicId: batch.publicIds[i]!,
          kind: batch.kinds[i]!,
        });
    }
  }
}
