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

  /** Days whose salt is needed now: those of waiting beacons, and today. */
  daysNeedingSalt(now: number): string[] {
    const days = new Set(this.unsalted.map((b) => utcDay(b.at)));
    days.add(utcDay(now));
    return [...days].filter((d) => !this.salts.has(d));
  }

  /**
   * Learns a day's salt (loaded from PostgreSQL) and forgets the salts of days before `today`:
   * beacons waiting for a salt that is known now are hashed; those of a past day whose salt is
   * unknown cannot be any more and are dropped (returned count).
   */
  setSalt(day: string, salt: string, today: string): number {
    this.salts.set(day, salt);
    for (const d of this.salts.keys()) if (d < today) this.salts.delete(d);
    const waiting = this.unsalted;
    this.unsalted = [];
    let dropped = 0;
    for (const beacon of waiting) {
      const d = utcDay(beacon.at);
      const s = this.salts.get(d);
      if (s !== undefined) this.add(d, s, beacon);
      else if (d < today) dropped++;
      else this.unsalted.push(beacon);
    }
    return dropped;
  }

  /** Everything hashed so far, handed to a flush; the tally starts empty again. */
  take(): TallyBatch {
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
