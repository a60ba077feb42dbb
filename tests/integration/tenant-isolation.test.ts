import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { startWireTap, type WireTap } from '../support/pg-wire-tap';
import { createAccountFixture } from '../support/shared-database';
import { API_ONLY, cli, removeDataDir, startService, tempDataDir, type RunningService } from '../support/service';

/**
 * Tenant isolation of batched admission, over HTTP against the real service on its own cluster.
 *
 * Authenticated reads that arrive together are admitted together, whatever their tokens: one
 * statement matches every token, charges each account's window and runs the reads of many
 * requests (server/admission/lanes.ts, admitted-statement.ts). For random mixes of GET /me,
 * GET /posts/{id} and GET /posts (own, other authors', unknown and malformed ids; good and bad
 * limits, status filters, own, other authors', forged and garbage cursors) sent by several
 * accounts' tokens (one account has two), a revoked token, unknown tokens, a malformed one, a live
 * secret under the wrong scheme and no token, all at once, this proves:
 *
 * - every answer is exactly the answer the same request got alone (status and JSON body), or a
 *   429 `rate_limited` for a request past its own account's limit, and nothing else: no request
 *   sees another account's article, page, cursor or limits, and a dead token gets its 401;
 * - each account's window is numbered as if its requests had come one after another: the
 *   answered ones carry the distinct `RateLimit-Remaining` values L−u−1, L−u−2, … (u units spent
 *   before), exactly the requests past L are 429 with Remaining 0, and `RateLimit-Limit` is the
 *   account's own limit. No unit goes to another account or to a dead token: alone, each account's
 *   count moves by one per request of its own live tokens only, and the next run in the same
 *   minute finds that the mix spent exactly one unit per request, its 429s included;
 * - the mix really shared statements: fewer `admitted_` statements were bound on the wire (seen
 *   by the relay of tests/support/pg-wire-tap.ts, which records each Bind's statement name) than
 *   the same requests bound one at a time, and fewer than there were requests of live tokens, so
 *   the test cannot pass on an unbatched path. The service talks to this cluster directly, so its
 *   statements are named (prepared); an unnamed one would be bound as '' and count as none, and
 *   the check that the mix bound at least one `admitted_` statement would fail, not pass.
 *
 * Each run sets two accounts' read limits (through the operator CLI, once per run: a call costs
 * seconds) to the units they will have spent after the alone phase plus a small margin, so the mix
 * finds their windows nearly full; the other two keep a limit no run comes near. The alone phase
 * is within every limit, so its answers are those of an unlimited window, under the limits the mix
 * then meets (GET /me shows them).
 *
 * Windows are fixed UTC minutes. A run starts with room left in the minute; a run that sees two
 * different `RateLimit-Reset` values is run again, whole, in the next minute. No run is skipped,
 * and the test fails unless fast-check executed every run it asked for.
 */
const ACCOUNTS = 4;
/** A read limit no run comes near. */
const HIGH = 1_000_000;
const RUNS = 5;
/** The accounts whose limit each run sets near their window's count; the others keep HIGH. */
const NEAR = [0, 2];
/** Seconds of the minute a run needs: the CLI call (2–6 s on a busy machine) and both phases. */
const ROOM_SECONDS = 12;
/** Attempts of one run before a window that keeps changing under it fails the test. */
const ATTEMPTS = 3;

type LiveToken = 'a0' | 'a0-second' | 'a1' | 'a2' | 'a3';
type DeadToken = 'revoked' | 'unknown' | 'unknown-b64' | 'malformed' | 'a0-wrong-scheme' | 'none';
type TokenName = LiveToken | DeadToken;
const LIVE: LiveToken[] = ['a0', 'a0-second', 'a1', 'a2', 'a3'];
const DEAD: DeadToken[] = ['revoked', 'unknown', 'unknown-b64', 'malformed', 'a0-wrong-scheme', 'none'];
/** The account each live token belongs to (a0 has two tokens, sharing every window). */
const ACCOUNT_OF: Record<LiveToken, number> = { a0: 0, 'a0-second': 0, a1: 1, a2: 2, a3: 3 };
const isLive = (t: TokenName): t is LiveToken => t in ACCOUNT_OF;

/** Requests as plain descriptions, so a counterexample reads as requests. */
type PostRef = { own: number } | { theirs: number; index: number } | { unknown: number } | { malformed: string };
type Cursor = 'own' | 'own-deeper' | 'theirs' | 'forged' | 'garbage';
type Route = { me: true } | { post: PostRef } | { list: { limit?: string; status?: string; cursor?: Cursor } };
type Request = { token: TokenName; route: Route };

/** What a test needs of an answer: status, JSON body and the rate-limit headers. */
interface Answer {
  status: number;
  body: unknown;
  limit: number | null;
  remaining: number | null;
  reset: number | null;
  retryAfter: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secondsLeftInMinute = () => 60 - ((Date.now() / 1000) % 60);
/** Waits for the next minute if fewer than `seconds` are left in this one. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = secondsLeftInMinute();
  if (left < seconds) await sleep(left * 1000 + 300);
}
const nextMinute = () => sleep(secondsLeftInMinute() * 1000 + 300);

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const base62 = (n: number) => Array.from(randomBytes(n), (b) => BASE62[b % 62]).join('');

describe('tenant isolation of batched reads', () => {
  const dataDir = tempDataDir('publishing-tenants-');
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  let tap: WireTap;
  let service: RunningService;
  const cliEnv = () => ({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg.url });

  const handles: string[] = [];
  /** `Authorization` header values by token name; null: no header at all. */
  const authorization = {} as Record<TokenName, string | null>;
  /** Each account's article ids, newest first, and two of its cursors (after 1 and after 3 items). */
  const posts: string[][] = [];
  const cursors: [string, string][] = [];
  const unknownIds = [randomUUID(), randomUUID()];
  /** Each account's read limit as set now. */
  const limits: number[] = Array(ACCOUNTS).fill(HIGH);
  /**
   * The windows as last counted: their end (`RateLimit-Reset`) and each account's units spent in
   * it. Null: not known (a run saw the minute change), so the next run waits for a fresh minute.
   */
  let known: { reset: number; used: number[] } | null = null;

  async function run(args: string[]): Promise<Record<string, unknown>> {
    const out = await cli(cliEnv(), args);
    expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    return out.json as Record<string, unknown>;
  }

  async function send(token: TokenName, route: string, method = 'GET'): Promise<Answer> {
    const header = authorization[token];
    const res = await fetch(`${service.baseUrl}/api/v1/author${route}`, {
      method,
      headers: header === null ? {} : { authorization: header },
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* kept as text: compared as it is */
    }
    const num = (name: string) => (res.headers.get(name) === null ? null : Number(res.headers.get(name)));
    return {
      status: res.status,
      body,
      limit: num('ratelimit-limit'),
      remaining: num('ratelimit-remaining'),
      reset: num('ratelimit-reset'),
      retryAfter: num('retry-after'),
    };
  }

  beforeAll(async () => {
    pg = await startEmbeddedPostgres(path.join(dataDir, 'external'), () => {});
    tap = await startWireTap(pg.url);
    service = await startService({ ...API_ONLY, DATA_DIR: dataDir, DATABASE_URL: tap.url, LOG_LEVEL: 'silent' });

    const tag = randomBytes(3).toString('hex');
    const created = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, a) =>
        createAccountFixture(
          {
            handle: `tenant-${tag}-${a}`,
            limits: { read_per_min: HIGH, write_per_min: 1000, publish_per_min: 1000 },
          },
          pg.url,
        ),
      ),
    );
    created.forEach((c, a) => {
      handles.push(c.handle);
      authorization[`a${a}` as LiveToken] = `Bearer ${c.token}`;
    });
    authorization.unknown = `Bearer dp_live_${base62(43)}`;
    authorization['unknown-b64'] = `Bearer dp_live_${randomBytes(32).toString('base64url')}`;
    authorization.malformed = `Bearer dp_live_${'!'.repeat(12)}`;
    // A live secret under another scheme is no token: 401, and account 0 is not charged.
    authorization['a0-wrong-scheme'] = `Token ${authorization.a0!.slice('Bearer '.length)}`;
    authorization.none = null;

    const tokens = async () => {
      authorization['a0-second'] = `Bearer ${(await run(['token', 'create', handles[0]!, '--name', 'second'])).token}`;
      // A revoked token of an account whose live token is in the mix: it must neither read nor charge.
      const doomed = await run(['token', 'create', handles[1]!, '--name', 'doomed']);
      await run(['token', 'revoke', doomed.id as string]);
      authorization.revoked = `Bearer ${doomed.token as string}`;
    };
    /**
     * A write of the setup, retried while the service answers 503: under a loaded CI machine a
     * new connection may take longer than the pool's 2 s to open, and the contract tells clients
     * to retry a 503. Any status but `expected` fails the setup, with the body saying why.
     */
    const setupWrite = async (
      token: LiveToken,
      route: string,
      expected: number,
      body?: unknown,
    ): Promise<Record<string, unknown>> => {
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(`${service.baseUrl}/api/v1/author${route}`, {
          method: 'POST',
          headers: {
            authorization: authorization[token]!,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status === 503 && attempt < 5) {
          console.warn(`setup: POST ${route} answered 503 (${text}); retrying`);
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        expect(res.status, `POST ${route}: ${text}`).toBe(expected);
        return JSON.parse(text) as Record<string, unknown>;
      }
    };
    const articles = async (a: number) => {
      const token = `a${a}` as LiveToken;
      const ids: string[] = [];
      // 4, 5, 6, 7 articles: pages and cursors differ from account to account.
      for (let j = 0; j < 4 + a; j++) {
        const { id } = (await setupWrite(token, '/posts', 201, {
          title: `Account ${a}, article ${j}`,
          markdown: `# Of account ${a}\n\nArticle **${j}**, for ${handles[a]} only.`,
          tags: [`account-${a}`],
        })) as { id: string };
        if (j % 2 === 0) await setupWrite(token, `/posts/${id}/publish`, 200);
        ids.unshift(id);
      }
      posts[a] = ids;
      const pages = [await send(token, '/posts?limit=1'), await send(token, '/posts?limit=3')];
      for (const page of pages) expect(page.status).toBe(200);
      cursors[a] = pages.map((p) => (p.body as { next_cursor: string }).next_cursor) as [string, string];
      return pages[1]!;
    };
    const [, ...lastReads] = await Promise.all([tokens(), ...Array.from({ length: ACCOUNTS }, (_, a) => articles(a))]);
    // The units these reads spent, for the first run's limits.
    const resets = new Set(lastReads.map((r) => r.reset));
    known = resets.size === 1 ? { reset: lastReads[0]!.reset!, used: lastReads.map((r) => HIGH - r.remaining!) } : null;
  });

  afterAll(async () => {
    await service?.stop();
    await tap?.close();
    await pg?.stop();
    removeDataDir(dataDir);
  });

  /** The account a request reads as: its token's, or account 0's ids and cursors for a dead token. */
  const ownerOf = (token: TokenName) => (isLive(token) ? ACCOUNT_OF[token] : 0);

  function pathOf({ token, route }: Request): string {
    const me = ownerOf(token);
    if ('me' in route) return '/me';
    if ('post' in route) {
      const p = route.post;
      const pick = (a: number, i: number) => posts[a]![i % posts[a]!.length]!;
      const id =
        'own' in p
          ? pick(me, p.own)
          : 'theirs' in p
            ? pick((me + p.theirs) % ACCOUNTS, p.index)
            : 'unknown' in p
              ? unknownIds[p.unknown]!
              : p.malformed;
      return `/posts/${id}`;
    }
    const { limit, status, cursor } = route.list;
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', limit);
    if (status !== undefined) query.set('status', status);
    if (cursor !== undefined) {
      const own = cursors[me]![0];
      query.set(
        'cursor',
        {
          own,
          'own-deeper': cursors[me]![1],
          theirs: cursors[(me + 1) % ACCOUNTS]![0],
          // Shaped like a cursor, signed for no one.
          forged: `${own.split('.')[0]}.${'A'.repeat(22)}`,
          garbage: 'garbage',
        }[cursor],
      );
    }
    return query.size ? `/posts?${query}` : '/posts';
  }

  const request: fc.Arbitrary<Request> = fc.record({
    token: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...LIVE) },
      { weight: 1, arbitrary: fc.constantFrom(...DEAD) },
    ),
    route: fc.oneof(
      fc.constant({ me: true as const }),
      fc
        .oneof(
          { weight: 3, arbitrary: fc.nat(9).map((own) => ({ own })) },
          {
            weight: 2,
            arbitrary: fc.record({ theirs: fc.integer({ min: 1, max: ACCOUNTS - 1 }), index: fc.nat(9) }),
          },
          { weight: 1, arbitrary: fc.nat(unknownIds.length - 1).map((unknown) => ({ unknown })) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('not-a-uuid', '12345', `${randomUUID().slice(0, -1)}g`).map((malformed) => ({
              malformed,
            })),
          },
        )
        .map((post): Route => ({ post })),
      fc
        .record(
          {
            limit: fc.oneof(
              { weight: 4, arbitrary: fc.integer({ min: 1, max: 50 }).map(String) },
              { weight: 1, arbitrary: fc.constantFrom('0', '51', 'x', '-1', '2.5') },
            ),
            status: fc.constantFrom('draft', 'published', 'pending_moderation', 'bogus'),
            cursor: fc.constantFrom<Cursor>('own', 'own-deeper', 'theirs', 'forged', 'garbage'),
          },
          { requiredKeys: [] },
        )
        .map((list): Route => ({ list })),
    ),
  });

  /** For each account of NEAR, how many units its limit leaves the mix (0: the window is full). */
  const margins = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }));

  const stats: string[] = [];

  const liveOf = (a: number, token: TokenName) => isLive(token) && ACCOUNT_OF[token] === a;

  /**
   * The alone phase: each distinct request once, one after another, each within its account's
   * limit. Records the answers and the `admitted_` statements each bound. `spent`: each account's
   * units in the window `reset` before the phase (null: a minute no request has reached yet).
   */
  async function alone(distinct: Map<string, Request>, reset: number | null, spent: number[]) {
    const answers = new Map<string, Answer>();
    const binds = new Map<string, number>();
    const units: number[] = Array(ACCOUNTS).fill(0);
    let window = reset;
    for (const [key, req] of distinct) {
      tap.reset();
      const answer = await send(req.token, pathOf(req));
      binds.set(key, tap.binds.filter((name) => name.startsWith('admitted_')).length);
      answers.set(key, answer);
      expect(answer.status, key).not.toBe(429);
      expect(answer.status, key).toBeLessThan(500);
      if (!isLive(req.token)) {
        expect(answer.status, key).toBe(401);
        expect(answer.body, key).toEqual({ error: expect.any(String), code: 'unauthorized' });
        expect([answer.limit, answer.remaining, answer.reset, answer.retryAfter], key).toEqual([
          null,
          null,
          null,
          null,
        ]);
        continue;
      }
      window ??= answer.reset;
      if (answer.reset !== window) return null;
      const a = ACCOUNT_OF[req.token];
      units[a]!++;
      expect(answer.limit, `${key}: the account's own limit`).toBe(limits[a]);
      // The next unit of the account's window: nothing else (another account, a dead token) took
      // one, and the last run's mix took exactly one per request, its 429s included.
      expect(answer.limit! - answer.remaining!, `${key}: units spent in account ${a}'s window`).toBe(
        spent[a]! + units[a]!,
      );
    }
    return { answers, binds, units, reset: window };
  }

  /** One run: the limits of NEAR set, each distinct request alone, then the whole mix at once. */
  async function runOnce(mix: Request[], margin: readonly number[]): Promise<'done' | 'window changed'> {
    if (!known) await nextMinute();
    await roomInMinute(ROOM_SECONDS);
    // Units already spent in the current minute: as last counted, or none in a minute not seen.
    const current = known && known.reset * 1000 > Date.now() ? known : null;
    const spent = current ? [...current.used] : Array<number>(ACCOUNTS).fill(0);
    known = null; // until this run has counted its own units
    const keys = mix.map((r) => `${r.token} ${pathOf(r)}`);
    const distinct = new Map(keys.map((k, i) => [k, mix[i]!]));
    const aloneUnits = (a: number) => [...distinct.values()].filter((r) => liveOf(a, r.token)).length;
    await Promise.all(
      NEAR.map(async (a, j) => {
        const limit = Math.max(1, spent[a]! + aloneUnits(a) + margin[j]!);
        await run(['account', 'update', handles[a]!, '--limit', `read_per_min=${limit}`]);
        limits[a] = limit;
      }),
    );

    const before = await alone(distinct, current?.reset ?? null, spent);
    if (!before) return 'window changed';

    tap.reset();
    const together = await Promise.all(mix.map((r) => send(r.token, pathOf(r))));
    const admittedBinds = tap.binds.filter((name) => name.startsWith('admitted_')).length;
    if (together.some((t) => t.reset !== null && t.reset !== before.reset)) return 'window changed';

    // Dead tokens: their 401, exactly as alone, without the headers of any window.
    together.forEach((answer, i) => {
      if (!isLive(mix[i]!.token)) expect(answer, keys[i]).toEqual(before.answers.get(keys[i]!));
    });
    const used = [...spent];
    let refused = 0;
    for (let a = 0; a < ACCOUNTS; a++) {
      const L = limits[a]!;
      const u = spent[a]! + before.units[a]!;
      const mine = together.map((answer, i) => ({ answer, key: keys[i]! })).filter((_, i) => liveOf(a, mix[i]!.token));
      for (const { answer, key } of mine) {
        expect(answer.limit, `${key}: the account's own limit`).toBe(L);
        expect(answer.reset, key).toBe(before.reset);
        if (answer.status === 429) {
          expect(answer.body, key).toEqual({ error: expect.any(String), code: 'rate_limited' });
          expect(answer.remaining, key).toBe(0);
          expect(answer.retryAfter, key).toBeGreaterThanOrEqual(1);
          continue;
        }
        const expected = before.answers.get(key)!;
        expect(answer.status, key).toBe(expected.status);
        expect(answer.body, key).toEqual(expected.body);
        expect(answer.retryAfter, key).toBeNull();
      }
      // Units u+1 … u+n of the account's own window, one per request: Remaining L−u−1, L−u−2, …
      // for those within L, 429 for exactly the others.
      const room = Math.min(mine.length, Math.max(0, L - u));
      const answered = mine.filter(({ answer }) => answer.status !== 429).map(({ answer }) => answer.remaining!);
      expect(
        answered.sort((x, y) => y - x),
        `account ${a}: limit ${L}, ${u} units spent before the mix`,
      ).toEqual(Array.from({ length: room }, (_, k) => L - u - 1 - k));
      expect(mine.length - answered.length, `account ${a}: 429s`).toBe(mine.length - room);
      refused += mine.length - room;
      used[a] = u + mine.length;
    }
    if (before.reset !== null) known = { reset: before.reset, used };

    // They shared statements: fewer than one per request of a live token, and fewer than the same
    // requests bound one at a time (a request refused before its read binds none).
    const live = mix.filter((r) => isLive(r.token)).length;
    const oneAtATime = keys.reduce((sum, k) => sum + before.binds.get(k)!, 0);
    expect(admittedBinds, 'admitted_ statements bound by the mix').toBeGreaterThan(0);
    expect(admittedBinds, 'admitted_ statements vs requests of live tokens').toBeLessThan(live);
    expect(admittedBinds, 'admitted_ statements vs the same requests one at a time').toBeLessThan(oneAtATime);
    const near = NEAR.map((a, j) => `account ${a} ${margin[j]} left of ${limits[a]}`).join(', ');
    stats.push(
      `${mix.length} requests (${live} of live tokens, ${distinct.size} distinct; ${near}; ${refused} answered 429): ` +
        `${admittedBinds} admitted_ statements, ${oneAtATime} one at a time`,
    );
    return 'done';
  }

  it('answers concurrent reads of many accounts exactly as alone, each window numbered on its own, in shared statements', async () => {
    const started = Date.now();
    let executed = 0;
    let again = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 60, maxLength: 150 }), margins, async (mix, margin) => {
        executed++;
        for (let attempt = 1; ; attempt++) {
          if ((await runOnce(mix, margin)) === 'done') break;
          // The minute changed under the run: it runs again, whole, in a fresh minute.
          expect(attempt, 'the minute window kept changing during the run').toBeLessThan(ATTEMPTS);
          again++;
        }
      }),
      // A run costs seconds and a failure is one of concurrency: report it as found, unshrunk.
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(executed, 'runs executed').toBe(RUNS);
    console.info(
      `tenant isolation: ${RUNS} runs in ${((Date.now() - started) / 1000).toFixed(1)} s, ${again} run again ` +
        `in a fresh minute\n  ${stats.join('\n  ')}`,
    );
  }, 300_000);
});
