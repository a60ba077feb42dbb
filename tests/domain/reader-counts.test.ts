import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { deletePost, publishPost, unpublishPost } from '../../server/services/posts/post-publishing';
import { popularitySql } from '../../server/model/popularity';
import { FLUSH_CHUNK, flushReaderTally, flushTally, loadDaySalt } from '../../server/services/readers/reader-counts';
import { applyReaderEvents } from '../../server/services/readers/reader-events';
import { oldestDayFlushed, ReaderTally, utcDay, type ReaderKind } from '../../server/services/readers/reader-tally';
import { statement } from '../../db/statements';
import { admitterFor, domainDatabase, newAccount } from './support';

/** Reader counts in PostgreSQL: the flush, the shared salt, the operator's batches, popularity. */
const parts = domainDatabase();
async function publishedArticle() {
  const account = await newAccount(parts.db());
  const post = await createPost(parts.write(account.id), { title: 'Counted', markdown: 'Body.' });
  await publishPost(parts.publishing(), account.id, post.id, false);
  return { accountId: account.id, secret: account.secret, id: post.id, publicId: post.public_id };
}

const counters = async (a: { secret: string; id: string }) => admitterFor(parts.db(), a.secret).post(a.id);

/** An instance's tally, with the day's salt loaded from the shared table as the runtime does. */
async function instanceTally(now = Date.now()): Promise<ReaderTally> {
  const tally = new ReaderTally();
  const today = utcDay(now);
  tally.setSalt(today, await loadDaySalt(parts.db(), today), oldestDayFlushed(now));
  return tally;
}

const beacon = (publicId: string, kind: ReaderKind, reader: number, at = Date.now()) => ({
  address: `192.0.2.${reader % 250}`,
  userAgent: `Mozilla/5.0 reader ${reader}`,
  publicId,
  kind,
  at,
});

const DAILY = statement(
  'test_reader_daily',
  `SELECT coalesce(sum(opens), 0)::int AS opens, coalesce(sum(reads), 0)::int AS reads, coalesce(sum(completes), 0)::int AS completes FROM reader_daily WHERE post_id = $1`,
);

describe('flush', () => {
  it('counts each reader once per article, kind and day across instances that share the salt', async () => {
    const a = await publishedArticle();
    const one = await instanceTally();
    const two = await instanceTally();
    for (let r = 0; r < 30; r++) one.record(beacon(a.publicId, 'open', r));
    // Readers 20–39 also reach the other instance: 20–29 are the same people again.
    for (let r = 20; r < 40; r++) two.record(beacon(a.publicId, 'open', r));
    two.record(beacon(a.publicId, 'read', 3));
    await Promise.all([flushTally(parts.db(), one.take(), 20), flushTally(parts.db(), two.take(), 20)]);
    const after = await counters(a);
    expect(after.open_count).toBe(40);
    expect(after.read_count).toBe(1);
    expect(after.complete_count).toBe(0);
    // The daily rows are what the totals are the sums of.
    const [daily] = await parts.db().run<{ opens: number; reads: number; completes: number }>(DAILY, [a.id]);
    expect(daily).toEqual({ opens: 40, reads: 1, completes: 0 });
    // The same readers the same day, flushed again: nothing more.
    const three = await instanceTally();
    for (let r = 0; r < 40; r++) three.record(beacon(a.publicId, 'open', r));
    await flushTally(parts.db(), three.take(), 20);
    expect((await counters(a)).open_count).toBe(40);
  });

  it('counts nothing for a draft, a deleted article or an id that names no article', async () => {
    const account = await newAccount(parts.db());
    const draft = await createPost(parts.write(account.id), { title: 'Draft', markdown: 'Body.' });
    const gone = await publishedArticle();
    await deletePost(parts.publishing(), gone.accountId, gone.id);
    const tally = await instanceTally();
    tally.record(beacon(draft.public_id, 'open', 1));
    tally.record(beacon(gone.publicId, 'open', 1));
    tally.record(beacon('zzzzzzzzzz', 'open', 1));
    await flushTally(parts.db(), tally.take(), 20);
    expect((await counters({ secret: account.secret, id: draft.id })).open_count).toBe(0);
    const [daily] = await parts.db().run<{ opens: number }>(DAILY, [gone.id]);
    expect(daily!.opens).toBe(0);
  });

  it('gives the same salt to every instance for a day and a new one for another day', async () => {
    const today = utcDay(Date.now());
    const tomorrow = utcDay(Date.now() + 86_400_000);
    const [s1, s2] = await Promise.all([loadDaySalt(parts.db(), today), loadDaySalt(parts.db(), today)]);
    expect(s1).toBe(s2);
    expect(s1).toHaveLength(43);
    expect(await loadDaySalt(parts.db(), tomorrow)).not.toBe(s1);
  });

  it('deletes the salts and seen hashes of a day an hour into the next, not before', async () => {
    const a = await publishedArticle();
    const SALTS = statement('test_reader_salt_of', `SELECT count(*)::int AS n FROM reader_salts WHERE day = $1::date`);
    const SEEN = statement('test_reader_seen_of', `SELECT count(*)::int AS n FROM reader_seen WHERE day = $1::date`);
    const kept = async (day: string) => [
      (await parts.db().run<{ n: number }>(SALTS, [day]))[0]!.n,
      (await parts.db().run<{ n: number }>(SEEN, [day]))[0]!.n,
    ];
    const midnight = Date.UTC(2020, 0, 2);
    const tally = new ReaderTally();
    tally.record(beacon(a.publicId, 'open', 1, midnight - 60_000));
    expect(await flushReaderTally(parts.db(), tally, midnight - 50_000)).toBe(1);
    expect(await kept('2020-01-01')).toEqual([1, 1]);
    // Any instance's flush during the first hour of the next day keeps them …
    expect(await flushReaderTally(parts.db(), new ReaderTally(), midnight + 59 * 60_000)).toBe(0);
    expect(await kept('2020-01-01')).toEqual([1, 1]);
    // … and the first one after it deletes them.
    await flushReaderTally(parts.db(), new ReaderTally(), midnight + 61 * 60_000);
    expect(await kept('2020-01-01')).toEqual([0, 0]);
  });

  it('writes a large tally in statements of FLUSH_CHUNK entries; a failed one gives back only itself and the rest', async () => {
    const a = await publishedArticle();
    const tally = await instanceTally();
    const readers = FLUSH_CHUNK * 2 + 500;
    // 250 addresses, each under its cap of readersPerAddress (20).
    for (let r = 0; r < readers; r++) tally.record(beacon(a.publicId, 'open', r));
    const db = parts.db();
    let flushes = 0;
    // The database goes away during the second statement of the flush.
    const failing = new Proxy(db, {
      get(target, key, receiver) {
        if (key !== 'run') return Reflect.get(target, key, receiver);
        return (st: { name: string }, values: unknown[]) => {
          if (st.name === 'reader_flush' && ++flushes === 2) return Promise.reject(new Error('connection lost'));
          return target.run(st as never, values);
        };
      },
    });
    await expect(flushReaderTally(failing, tally, Date.now())).rejects.toThrow('connection lost');
    expect(flushes).toBe(2);
    // The first chunk stayed written; the rest waits in the tally.
    expect((await counters(a)).open_count).toBe(FLUSH_CHUNK);
    expect(await flushReaderTally(db, tally, Date.now())).toBe(readers - FLUSH_CHUNK);
    expect((await counters(a)).open_count).toBe(readers);
    expect(await flushReaderTally(db, tally, Date.now())).toBe(0);
  });

  it('counts a reader once on the day they arrived when a beacon of the last second is flushed after midnight', async () => {
    const a = await publishedArticle();
    const midnight = Date.UTC(2020, 5, 2);
    const one = new ReaderTally();
    const two = new ReaderTally();
    // Reader 1 reaches instance one, flushed before midnight …
    one.record(beacon(a.publicId, 'open', 1, midnight - 10_000));
    expect(await flushReaderTally(parts.db(), one, midnight - 8_000)).toBe(1);
    // … and again instance two a second before midnight, with reader 2; instance one flushes
    // first in the new day (loading the new day's salt), then instance two.
    two.record(beacon(a.publicId, 'open', 1, midnight - 1_000));
    two.record(beacon(a.publicId, 'open', 2, midnight - 500));
    await flushReaderTally(parts.db(), one, midnight + 1_000);
    expect(await flushReaderTally(parts.db(), two, midnight + 4_000)).toBe(2);
    expect((await counters(a)).open_count).toBe(2);
    const BY_DAY = statement(
      'test_reader_daily_by_day',
      `SELECT day::text AS day, opens FROM reader_daily WHERE post_id = $1 ORDER BY day`,
    );
    expect(await parts.db().run(BY_DAY, [a.id])).toEqual([{ day: '2020-06-01', opens: 2 }]);
  });
});

describe('what one address can add', () => {
  const STORED = statement(
    'test_reader_rows',
    `SELECT (SELECT count(*) FROM reader_seen)::int AS seen, (SELECT count(*) FROM reader_sources)::int AS sources`,
  );
  const stored = async () => (await parts.db().run<{ seen: number; sources: number }>(STORED, []))[0]!;
  const agent = (address: string, r: number, publicId: string, kind: ReaderKind = 'open') => ({
    address,
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 variant-${r}`,
    publicId,
    kind,
    at: Date.now(),
  });

  it('counts at most readersPerAddress readers per article, kind and day from one address, over flushes and instances', async () => {
    const a = await publishedArticle();
    const instances = [await instanceTally(), await instanceTally(), await instanceTally()];
    // 300 user agents from one address, spread over three instances and two rounds of flushes.
    for (let round = 0; round < 2; round++) {
      for (let r = 0; r < 150; r++) instances[r % 3]!.record(agent('203.0.113.9', round * 150 + r, a.publicId));
      await Promise.all(instances.map((t) => flushTally(parts.db(), t.take(), 20)));
    }
    // Another address and another kind have bounds of their own.
    for (let r = 0; r < 30; r++) instances[0]!.record(agent('198.51.100.4', r, a.publicId));
    for (let r = 0; r < 30; r++) instances[1]!.record(agent('203.0.113.9', r, a.publicId, 'read'));
    await Promise.all(instances.map((t) => flushTally(parts.db(), t.take(), 20)));
    const after = await counters(a);
    expect([after.open_count, after.read_count]).toEqual([40, 20]);
    const [daily] = await parts.db().run<{ opens: number; reads: number }>(DAILY, [a.id]);
    expect([daily!.opens, daily!.reads]).toEqual([40, 20]);
  });

  it('stores nothing for beacons of made-up ids, drafts or deleted articles', async () => {
    const account = await newAccount(parts.db());
    const draft = await createPost(parts.write(account.id), { title: 'Draft', markdown: 'Body.' });
    const before = await stored();
    const tally = await instanceTally();
    tally.record(agent('203.0.113.10', 1, draft.public_id));
    for (let i = 0; i < 500; i++)
      tally.record(agent(`10.9.${i >> 8}.${i & 255}`, i, `zz${String(i).padStart(8, '0')}`));
    await flushTally(parts.db(), tally.take(), 20);
    expect(await stored()).toEqual(before);
  });
});

describe('an article changing between a view and its flush', () => {
  it('counts a beacon of an article whose slug changed and that was published again: its public id stays', async () => {
    const a = await publishedArticle();
    const tally = await instanceTally();
    tally.record(beacon(a.publicId, 'open', 1));
    await updatePost(parts.write(a.accountId), a.id, {
      slug: `renamed-${a.publicId}`,
    });
    await publishPost(parts.publishing(), a.accountId, a.id, false);
    tally.record(beacon(a.publicId, 'open', 2));
    await flushTally(parts.db(), tally.take(), 20);
    const post = await counters(a);
    expect(post.slug).toBe(`renamed-${a.publicId}`);
    expect(post.public_id).toBe(a.publicId);
    expect(post.open_count).toBe(2);
  });

  it('counts nothing for an article unpublished between the view and the flush', async () => {
    const a = await publishedArticle();
    const tally = await instanceTally();
    tally.record(beacon(a.publicId, 'open', 1));
    tally.record(beacon(a.publicId, 'read', 1));
    await unpublishPost(parts.publishing(), a.accountId, a.id);
    await flushTally(parts.db(), tally.take(), 20);
    expect((await counters(a)).open_count).toBe(0);
    const [daily] = await parts.db().run<{ opens: number; reads: number }>(DAILY, [a.id]);
    expect([daily!.opens, daily!.reads]).toEqual([0, 0]);
  });
});

describe('operator batches', () => {
  it('applies a batch once: a replay changes nothing and answers the same', async () => {
    const a = await publishedArticle();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const batch = {
      batch_id: `b-${a.id}`,
      events: [
        { post_id: a.id, kind: 'like' as const, count: 5 },
        { post_id: a.id, kind: 'impression' as const, count: 100 },
        { post_id: a.id, kind: 'comment' as const },
        { post_id: unknown, kind: 'save' as const },
      ],
    };
    const first = await applyReaderEvents(parts.db(), batch);
    expect(first).toEqual({ applied: 3, unknown_posts: [unknown] });
    const again = await applyReaderEvents(parts.db(), batch);
    expect(again).toEqual(first);
    const post = await counters(a);
    expect([post.like_count, post.impression_count, post.comment_count]).toEqual([5, 100, 1]);
    expect(post.popularity).toBeGreaterThan(0);
  });

  it('never takes a counter below 0', async () => {
    const a = await publishedArticle();
    await applyReaderEvents(parts.db(), {
      batch_id: `u-${a.id}`,
      events: [
        { post_id: a.id, kind: 'like', count: 2 },
        { post_id: a.id, kind: 'unlike', count: 7 },
        { post_id: a.id, kind: 'unsave', count: 3 },
        { post_id: a.id, kind: 'uncomment' },
      ],
    });
    const post = await counters(a);
    expect([post.like_count, post.save_count, post.comment_count, post.popularity]).toEqual([0, 0, 0, 0]);
  });
});

describe('corrections', () => {
  it('takes back opens, reads, full reads and impressions, in the totals and in the day, never below 0', async () => {
    const a = await publishedArticle();
    await applyReaderEvents(parts.db(), {
      batch_id: `c1-${a.id}`,
      events: [
        { post_id: a.id, kind: 'open', count: 50 },
        { post_id: a.id, kind: 'read', count: 40 },
        { post_id: a.id, kind: 'complete', count: 30 },
        { post_id: a.id, kind: 'impression', count: 100 },
      ],
    });
    const counted = await counters(a);
    await applyReaderEvents(parts.db(), {
      batch_id: `c2-${a.id}`,
      events: [
        { post_id: a.id, kind: 'unopen', count: 20 },
        { post_id: a.id, kind: 'unread', count: 40 },
        { post_id: a.id, kind: 'uncomplete', count: 99 },
        { post_id: a.id, kind: 'unimpression', count: 1 },
      ],
    });
    const after = await counters(a);
    expect([after.open_count, after.read_count, after.complete_count, after.impression_count]).toEqual([30, 0, 0, 99]);
    expect(after.popularity).toBeLessThan(counted.popularity);
    const [daily] = await parts.db().run<{ opens: number; reads: number; completes: number }>(DAILY, [a.id]);
    expect(daily).toEqual({ opens: 30, reads: 0, completes: 0 });
  });
});

describe('popularity', () => {
  const POPULARITY = statement(
    'test_popularity',
    `SELECT ${popularitySql({ likes: '$1::int', comments: '$2::int', saves: '$3::int', reads: '$4::int', since: 'now() - make_interval(hours => $5::int)' })} AS p`,
  );
  const score = async (likes: number, comments: number, saves: number, reads: number, hours: number) =>
    (await parts.db().run<{ p: number }>(POPULARITY, [likes, comments, saves, reads, hours]))[0]!.p;

  it('is a non-negative integer, 0 without reactions, rising with each input and falling with age', async () => {
    const n = fc.integer({ min: 0, max: 100_000 });
    await fc.assert(
      fc.asyncProperty(n, n, n, n, fc.integer({ min: 0, max: 24 * 365 }), async (l, c, s, r, h) => {
        const base = await score(l, c, s, r, h);
        expect(Number.isInteger(base)).toBe(true);
        expect(base).toBeGreaterThanOrEqual(0);
        expect(await score(l + 1000, c, s, r, h)).toBeGreaterThanOrEqual(base);
        expect(await score(l, c + 1000, s, r, h)).toBeGreaterThanOrEqual(base);
        expect(await score(l, c, s + 1000, r, h)).toBeGreaterThanOrEqual(base);
        expect(await score(l, c, s, r + 1000, h)).toBeGreaterThanOrEqual(base);
        expect(await score(l, c, s, r, h + 24)).toBeLessThanOrEqual(base);
      }),
      { numRuns: 40 },
    );
    expect(await score(0, 0, 0, 0, 0)).toBe(0);
    // The documented formula: floor(10000 × (likes + 2 saves + 3 comments + reads) / (hours + 2)^1.5).
    // (The age is measured a few microseconds after the test set it, hence the lower bound.)
    const documented = Math.floor((10000 * (10 + 4 + 3 + 5)) / Math.pow(4, 1.5));
    const measured = await score(10, 1, 2, 5, 2);
    expect(measured).toBeLessThanOrEqual(documented);
    expect(measured).toBeGreaterThanOrEqual(documented - 1);
    expect(await score(2_000_000_000, 0, 0, 0, 0)).toBe(2147483647);
  });
});
