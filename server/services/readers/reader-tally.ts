import { createHmac, hash, randomBytes } from 'node:crypto';

/**
 * What readers' browsers loaded, held in memory until the next flush (reader-counts.ts writes
 * it in one statement). Pure: no database, no HTTP.
 *
 * A reader is never stored as such. On arrival a beacon's address and user agent become two
 * fixed-size digests (whatever their length, an entry holds the same bytes); once the secret
 * salt of its UTC day is known, the beacon becomes two keyed hashes:
 * - the reader: (address, user agent, article, kind): the same reader on the same day gives the
 *   same hash on every instance (the salt is shared through PostgreSQL), so counting only new
 *   hashes counts a reader once per article, kind and day;
 * - its source: (address, article, kind): one address adds at most `readersPerAddress` readers
 *   to one article's counter per day, whatever user agents it sends (the flush holds that
 *   across instances; the tally holds it between two flushes, so one address cannot fill the
 *   memory either).
 * Once the day's salt is deleted, nothing links a hash to an address any more.
 *
 * "Address" here is the client's network (`clientNetwork`, foundation/client-network.ts), not the exact address it used: an
 * IPv4 address as such, an IPv6 address by the prefix a client controls (a /64 by default), so
 * that one client does not count as many readers by using many of its own addresses.
 */
export type ReaderKind = 'open' | 'read' | 'complete';

export interface Beacon {
  /** The reader's network: `clientNetwork(address)` of the address the beacon came from. */
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

/** 128 bits of SHA-256 as text (22 characters): what stands for an address or a user agent in memory. */
function digest(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 22);
}

/** A beacon's reader, before the day's salt is applied: fixed-size digests only. */
export interface ReaderDigests {
  address: string;
  agent: string;
  publicId: string;
  kind: ReaderKind;
}

export function readerDigests(b: Pick<Beacon, 'address' | 'userAgent' | 'publicId' | 'kind'>): ReaderDigests {
  return { address: digest(b.address), agent: digest(b.userAgent), publicId: b.publicId, kind: b.kind };
}

/** 128 bits of HMAC-SHA256: collisions are out of reach, and the input cannot be recovered without the salt. */
function keyed(salt: string, text: string): string {
  return createHmac('sha256', salt).update(text).digest('base64url').slice(0, 22);
}

/** The reader's hash on the day of `salt`: address, user agent, article and kind. */
export function readerHash(salt: string, d: ReaderDigests): string {
  return keyed(salt, `r\n${d.address}\n${d.agent}\n${d.publicId}\n${d.kind}`);
}

/** The hash of where the reader came from on the day of `salt`: address, article and kind (not the user agent). */
function sourceHash(salt: string, d: Omit<ReaderDigests, 'agent'>): string {
  return keyed(salt, `s\n${d.address}\n${d.publicId}\n${d.kind}`);
}

/**
 * Crawlers, link-preview fetchers, HTTP libraries and image fetchers (this service's own rehost
 * among them): they rarely load images, and when they do they are not readers. Matched on the
 * user agent, case-insensitively; an empty one counts as a bot too.
 */
const BOT_USER_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|facebookexternalhit|facebookcatalog|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|skypeuripreview|bitlybot|nuzzel|discordbot|google-read-aloud|lighthouse|pagespeed|preview|curl\/|wget\/|python-|python\/|httpx|aiohttp|go-http-client|java\/|okhttp|node-fetch|undici|axios|libwww|httpclient|scrapy|phantomjs|feedfetcher|imagefetcher|feedly|inoreader|monitor|uptime|checker|^node$/i;

export function isKnownBot(userAgent: string | undefined): boolean {
  return !userAgent || userAgent.trim() === '' || BOT_USER_AGENT.test(userAgent);
}

/** One flush's worth: parallel arrays, as the flush statement takes them (unnest). */
export interface TallyBatch {
  days: string[];
  hashes: string[];
  sources: string[];
  publicIds: string[];
  kinds: ReaderKind[];
}

interface Seen {
  day: string;
  hash: string;
  source: string;
  publicId: string;
  kind: ReaderKind;
}

interface Waiting extends ReaderDigests {
  day: string;
}

const sourceKey = (day: string, d: ReaderDigests) => `${day}|${d.address}|${d.publicId}|${d.kind}`;

export type RecordOutcome = 'pending' | 'duplicate' | 'limited' | 'dropped';

export interface TallyLimits {
  /** Entries held at once (hashed and waiting for a salt); past it new beacons are dropped. */
  capacity: number;
  /** Readers one address (one network: clientNetwork) adds to one article's counter of one kind per UTC day. */
  readersPerAddress: number;
  /** Entries one address may hold between two flushes, over all articles (made-up ids included). */
  pendingPerAddress: number;
}

/**
 * Defaults: 20 readers per address (a household or an office behind one address still counts);
 * 1,000 entries per address between flushes (200 beacons a second for 5 s); 200,000 entries in
 * all, about 60 MB at the most (every string an entry holds has a fixed length).
 */
const DEFAULT_TALLY_LIMITS: TallyLimits = { capacity: 200_000, readersPerAddress: 20, pendingPerAddress: 1_000 };

/**
 * Distinct hashes since the last flush, plus the beacons of a day whose salt this instance
 * does not know yet (only until the salt is loaded, normally the first seconds after start).
 * Bounded by `limits`: per article and address, per address, and in all.
 */
export class ReaderTally {
  private pending = new Map<string, Seen>();
  private unsalted = new Map<string, Waiting>();
  /** Entries per (day, address, article, kind) and per (day, address) since the last flush. */
  private perSource = new Map<string, number>();
  private perAddress = new Map<string, number>();
  private readonly salts = new Map<string, string>();
  /** The `oldestDayKept` this instance last deleted the older days' salts and hashes for. */
  forgottenBefore: string | undefined;
  /** Beacons of failed flushes that did not fit back (giveBack), since the start. */
  lostToFailedFlushes = 0;
  readonly limits: TallyLimits;

  constructor(limits: Partial<TallyLimits> = {}) {
    this.limits = { ...DEFAULT_TALLY_LIMITS, ...limits };
  }

  get size(): number {
    return this.pending.size + this.unsalted.size;
  }

  /**
   * Characters held by the entries (keys and values), for the memory bound: the same for every
   * entry, whatever the address or user agent it came from.
   */
  get heldCharacters(): number {
    let total = 0;
    for (const [key, s] of this.pending)
      total += key.length + s.day.length + s.hash.length + s.source.length + s.publicId.length;
    for (const [key, w] of this.unsalted)
      total += key.length + w.day.length + w.address.length + w.agent.length + w.publicId.length;
    for (const key of this.perSource.keys()) total += key.length;
    for (const key of this.perAddress.keys()) total += key.length;
    return total;
  }

  record(beacon: Beacon): RecordOutcome {
    const day = utcDay(beacon.at);
    const d = readerDigests(beacon);
    const salt = this.salts.get(day);
    if (salt === undefined) {
      const key = `${day}|${d.address}|${d.agent}|${d.publicId}|${d.kind}`;
      if (this.unsalted.has(key)) return 'duplicate';
      const refused = this.admit(day, d);
      if (refused) return refused;
      this.unsalted.set(key, { day, ...d });
      return 'pending';
    }
    const hash = readerHash(salt, d);
    const key = `${day}|${hash}`;
    if (this.pending.has(key)) return 'duplicate';
    const refused = this.admit(day, d);
    if (refused) return refused;
    this.pending.set(key, { day, hash, source: sourceHash(salt, d), publicId: d.publicId, kind: d.kind });
    return 'pending';
  }

  /** Room for one more entry of this reader, counted against its source and address; or why not. */
  private admit(day: string, d: ReaderDigests): RecordOutcome | null {
    if (this.size >= this.limits.capacity) return 'dropped';
    const fromSource = this.perSource.get(sourceKey(day, d)) ?? 0;
    const fromAddress = this.perAddress.get(`${day}|${d.address}`) ?? 0;
    if (fromSource >= this.limits.readersPerAddress || fromAddress >= this.limits.pendingPerAddress) return 'limited';
    this.countAgainst(day, d);
    return null;
  }

  private countAgainst(day: string, d: ReaderDigests): void {
    const source = sourceKey(day, d);
    const address = `${day}|${d.address}`;
    this.perSource.set(source, (this.perSource.get(source) ?? 0) + 1);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
  }

  /** Days whose salt is needed now: those of waiting beacons still flushed (oldestDayFlushed), and today. */
  daysNeedingSalt(now: number): string[] {
    const oldest = oldestDayFlushed(now);
    const days = new Set([...this.unsalted.values()].map((w) => w.day).filter((d) => d >= oldest));
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
    let dropped = 0;
    for (const [key, w] of this.unsalted) {
      const salt = this.salts.get(w.day);
      if (w.day < oldest) dropped++;
      else if (salt === undefined) continue;
      else {
        const hash = readerHash(salt, w);
        this.pending.set(`${w.day}|${hash}`, {
          day: w.day,
          hash,
          source: sourceHash(salt, w),
          publicId: w.publicId,
          kind: w.kind,
        });
      }
      this.unsalted.delete(key);
    }
    for (const [key, seen] of this.pending) if (seen.day < oldest) this.pending.delete(key);
    return dropped;
  }

  /**
   * Everything hashed so far, handed to a flush; the tally starts empty again (and so do the
   * per-address counts: the flush holds the daily bound). Each entry keeps the day it arrived
   * on. Entries, waiting beacons and salts of days before `oldest` (see oldestDayFlushed) are
   * dropped first: their day's hashes may be gone from PostgreSQL.
   */
  take(oldest?: string): TallyBatch {
    if (oldest !== undefined) this.forgetBefore(oldest);
    const batch: TallyBatch = { days: [], hashes: [], sources: [], publicIds: [], kinds: [] };
    for (const s of this.pending.values()) {
      batch.days.push(s.day);
      batch.hashes.push(s.hash);
      batch.sources.push(s.source);
      batch.publicIds.push(s.publicId);
      batch.kinds.push(s.kind);
    }
    this.pending = new Map();
    this.perSource = new Map();
    this.perAddress = new Map();
    // Waiting beacons stay (their salt is not known yet); they still count against their address.
    for (const w of this.unsalted.values()) this.countAgainst(w.day, w);
    return batch;
  }

  /**
   * A batch whose flush failed comes back, to be tried with the next one, as far as the capacity
   * allows: while PostgreSQL is down every flush fails, and without the bound each would add up
   * to a whole tally again. What does not fit is lost, counted in `lostToFailedFlushes`.
   */
  giveBack(batch: TallyBatch): void {
    for (let i = 0; i < batch.hashes.length; i++) {
      const key = `${batch.days[i]}|${batch.hashes[i]}`;
      if (this.pending.has(key)) continue;
      if (this.size >= this.limits.capacity) {
        this.lostToFailedFlushes++;
        continue;
      }
      this.pending.set(key, {
        day: batch.days[i]!,
        hash: batch.hashes[i]!,
        source: batch.sources[i]!,
        publicId: batch.publicIds[i]!,
        kind: batch.kinds[i]!,
      });
    }
  }
}
