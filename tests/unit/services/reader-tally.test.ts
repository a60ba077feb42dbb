import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isKnownBot,
  oldestDayFlushed,
  readerDigests,
  readerHash as hashOfDigests,
  ReaderTally,
  utcDay,
  type Beacon,
} from '../../../server/services/readers/reader-tally';

/** The pure parts of reader counting: the day, the hash, bots, and what a flush receives. */
const readerHash = (salt: string, b: Beacon) => hashOfDigests(salt, readerDigests(b));
const DAY = Date.UTC(2026, 10, 24, 12);
const beacon = (over: Partial<Beacon> = {}): Beacon => ({
  address: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131',
  publicId: 'abcdefghij',
  kind: 'open',
  at: DAY,
  ...over,
});

describe('utcDay', () => {
  it('is the UTC calendar day, rolling over at midnight UTC only', () => {
    expect(utcDay(Date.UTC(2026, 10, 24, 0, 0, 0))).toBe('2026-11-24');
    expect(utcDay(Date.UTC(2026, 10, 24, 23, 59, 59, 999))).toBe('2026-11-24');
    expect(utcDay(Date.UTC(2026, 10, 25))).toBe('2026-11-25');
  });
});

describe('readerHash', () => {
  it('is the same for the same reader, salt, article and kind, and differs when any of them changes', () => {
    const salt = 'salt-of-the-day';
    const h = readerHash(salt, beacon());
    expect(h).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(readerHash(salt, beacon())).toBe(h);
    expect(readerHash('salt-of-the-next-day', beacon())).not.toBe(h);
    expect(readerHash(salt, beacon({ address: '203.0.113.8' }))).not.toBe(h);
    expect(readerHash(salt, beacon({ userAgent: 'Mozilla/5.0 Firefox/133' }))).not.toBe(h);
    expect(readerHash(salt, beacon({ publicId: 'abcdefghik' }))).not.toBe(h);
    expect(readerHash(salt, beacon({ kind: 'read' }))).not.toBe(h);
  });
  it('never carries the address it was made from', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.string({ minLength: 1 }), (address, salt) => {
        expect(readerHash(salt, beacon({ address }))).not.toContain(address);
      }),
    );
  });
});

describe('isKnownBot', () => {
  it('recognises crawlers, link previews and HTTP libraries, not browsers', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'facebookexternalhit/1.1',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'curl/8.5.0',
      'python-requests/2.31',
      'Twitterbot/1.0',
      '',
      undefined,
    ])
      expect(isKnownBot(ua), String(ua)).toBe(true);
    for (const ua of [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0 Safari/537.36',
    ])
      expect(isKnownBot(ua), ua).toBe(false);
  });
});

describe('ReaderTally', () => {
  it('hands a flush each distinct reader once, whatever the number of repeats', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            reader: fc.integer({ min: 0, max: 20 }),
            kind: fc.constantFrom('open', 'read', 'complete') as fc.Arbitrary<Beacon['kind']>,
          }),
          { maxLength: 200 },
        ),
        (events) => {
          const tally = new ReaderTally({ readersPerAddress: 1000 });
          tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
          for (const e of events) tally.record(beacon({ userAgent: `ua ${e.reader}`, kind: e.kind }));
          const batch = tally.take();
          const distinct = new Set(events.map((e) => `${e.reader}|${e.kind}`));
          expect(batch.hashes).toHaveLength(distinct.size);
          for (const kind of ['open', 'read', 'complete'] as const)
            expect(batch.kinds.filter((k) => k === kind)).toHaveLength(
              [...distinct].filter((d) => d.endsWith(`|${kind}`)).length,
            );
          expect(tally.take().hashes).toHaveLength(0);
        },
      ),
    );
  });

  it('holds beacons until the salt of their day is known, then hashes them; a past day without salt is dropped', () => {
    const tally = new ReaderTally();
    const today = utcDay(DAY);
    expect(tally.daysNeedingSalt(DAY)).toEqual([today]);
    tally.record(beacon());
    tally.record(beacon({ at: DAY - 86_400_000 }));
    expect(tally.take().hashes).toHaveLength(0);
    // Yesterday's beacon is past the late flush at midday: its salt is not asked for any more.
    expect(tally.daysNeedingSalt(DAY)).toEqual([today]);
    expect(tally.setSalt(today, 'salt', oldestDayFlushed(DAY))).toBe(1);
    const batch = tally.take();
    expect(batch.hashes).toEqual([readerHash('salt', beacon())]);
    expect(batch.days).toEqual([today]);
  });

  it('takes a failed batch back without counting a reader twice', () => {
    const tally = new ReaderTally();
    tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
    tally.record(beacon());
    const batch = tally.take();
    tally.record(beacon());
    tally.giveBack(batch);
    expect(tally.take().hashes).toHaveLength(1);
  });

  it('takes failed batches back only up to its capacity, counting what is lost', () => {
    const tally = new ReaderTally({ capacity: 3 });
    tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
    for (const r of [0, 1, 2]) tally.record(beacon({ userAgent: `ua ${r}` }));
    // Every flush fails (PostgreSQL is down), and two new readers arrive during each.
    for (let flush = 0; flush < 5; flush++) {
      const failed = tally.take();
      expect(failed.hashes).toHaveLength(3);
      for (const r of [0, 1]) tally.record(beacon({ userAgent: `new ${flush} ${r}` }));
      tally.giveBack(failed);
      expect(tally.size).toBe(3);
    }
    expect(tally.lostToFailedFlushes).toBe(10);
  });

  it('drops beacons past its capacity instead of growing', () => {
    const tally = new ReaderTally({ capacity: 3 });
    tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
    const outcomes = [0, 1, 2, 3, 4].map((r) => tally.record(beacon({ userAgent: `ua ${r}` })));
    expect(outcomes).toEqual(['pending', 'pending', 'pending', 'dropped', 'dropped']);
  });

  describe('at midnight (UTC)', () => {
    const MIDNIGHT = Date.UTC(2026, 10, 25);
    const before = utcDay(MIDNIGHT - 1);
    const after = utcDay(MIDNIGHT);

    it("keeps a beacon of the last second of a day on that day, with that day's salt, when flushed in the next", () => {
      const tally = new ReaderTally();
      tally.setSalt(before, 'salt-before', oldestDayFlushed(MIDNIGHT - 5_000));
      tally.record(beacon({ at: MIDNIGHT - 1_000 }));
      // The first flush of the new day loads the new day's salt first.
      const now = MIDNIGHT + 3_000;
      expect(tally.daysNeedingSalt(now)).toEqual([after]);
      tally.setSalt(after, 'salt-after', oldestDayFlushed(now));
      tally.record(beacon({ at: MIDNIGHT + 2_000 }));
      const batch = tally.take(oldestDayFlushed(now));
      expect(batch.days).toEqual([before, after]);
      expect(batch.hashes).toEqual([readerHash('salt-before', beacon()), readerHash('salt-after', beacon())]);
    });

    it('hashes a beacon that waited for its salt over midnight with the salt of the day it arrived on', () => {
      const tally = new ReaderTally();
      tally.record(beacon({ at: MIDNIGHT - 1_000 }));
      const now = MIDNIGHT + 3_000;
      expect(tally.daysNeedingSalt(now).sort()).toEqual([before, after]);
      tally.setSalt(before, 'salt-before', oldestDayFlushed(now));
      const batch = tally.take(oldestDayFlushed(now));
      expect(batch.days).toEqual([before]);
      expect(batch.hashes).toEqual([readerHash('salt-before', beacon())]);
    });

    it('drops what is still held of a day half an hour into the next (its hashes may be gone by then)', () => {
      const tally = new ReaderTally();
      tally.setSalt(before, 'salt-before', before);
      tally.record(beacon({ at: MIDNIGHT - 1_000 }));
      const failed = tally.take(oldestDayFlushed(MIDNIGHT + 5_000));
      expect(failed.days).toEqual([before]);
      tally.giveBack(failed);
      expect(tally.take(oldestDayFlushed(MIDNIGHT + 29 * 60_000)).days).toEqual([before]);
      tally.giveBack(failed);
      expect(tally.take(oldestDayFlushed(MIDNIGHT + 31 * 60_000)).hashes).toEqual([]);
      // Its salt is forgotten too: a late beacon of that day is not hashed with it any more.
      expect(tally.daysNeedingSalt(MIDNIGHT + 31 * 60_000)).toEqual([after]);
    });
  });

  describe('bounds', () => {
    it('takes at most readersPerAddress readers of one address for one article and kind, whatever their user agents', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 0, max: 300 }),
          fc.boolean(),
          (limit, agents, salted) => {
            const tally = new ReaderTally({ readersPerAddress: limit });
            if (salted) tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
            const outcomes = Array.from({ length: agents }, (_, r) =>
              tally.record(beacon({ userAgent: `Mozilla/5.0 ${r}` })),
            );
            const taken = Math.min(limit, agents);
            expect(outcomes.filter((o) => o === 'pending')).toHaveLength(taken);
            expect(outcomes.filter((o) => o === 'limited')).toHaveLength(agents - taken);
            // Another address, another article or another kind has its own bound.
            expect(tally.record(beacon({ address: '198.51.100.1' }))).toBe('pending');
            expect(tally.record(beacon({ publicId: 'zzzzzzzzzz' }))).toBe('pending');
            expect(tally.record(beacon({ kind: 'read' }))).toBe('pending');
            if (!salted) tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
            expect(tally.take().hashes).toHaveLength(taken + 3);
          },
        ),
        { numRuns: 50 },
      );
    });

    it('holds at most pendingPerAddress entries of one address between flushes (made-up ids included), then starts again', () => {
      const tally = new ReaderTally({ pendingPerAddress: 100 });
      tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
      const ids = Array.from({ length: 1000 }, (_, i) => `id${String(i).padStart(8, '0')}`);
      const outcomes = ids.map((publicId) => tally.record(beacon({ publicId })));
      expect(outcomes.filter((o) => o === 'pending')).toHaveLength(100);
      expect(tally.size).toBe(100);
      expect(tally.record(beacon({ address: '198.51.100.1', publicId: ids[500]! }))).toBe('pending');
      expect(tally.take().hashes).toHaveLength(101);
      expect(tally.record(beacon({ publicId: ids[999]! }))).toBe('pending');
    });

    it('holds the same bytes for a beacon whatever the length of its address and user agent, salted or not', () => {
      for (const salted of [false, true]) {
        const held = (userAgent: string, address: string) => {
          const tally = new ReaderTally();
          if (salted) tally.setSalt(utcDay(DAY), 'salt', utcDay(DAY));
          tally.record(beacon({ userAgent, address }));
          expect(tally.size).toBe(1);
          return tally.heldCharacters;
        };
        const small = held('Mozilla/5.0', '203.0.113.7');
        expect(held(`Mozilla/5.0 ${'x'.repeat(10_000)}`, '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(small);
        expect(small).toBeLessThan(300);
      }
    });
  });
});
