import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Statement, StatementRunner } from '../../db/statements';
import { admitInLane } from '../../server/admission/lanes';
import { sql } from '../../server/admission/sql';
import { statement } from '../../db/statements';
import {
  admittedStatement,
  runAdmitted,
  type Admitted,
  type AdmittedRead,
} from '../../server/admission/admitted-statement';
import { admittedMediaBytesToday } from '../../server/data/usage-counters';
import { admittedPostPage, admittedPostRow } from '../../server/data/posts/reads';
import { createPost } from '../../server/services/posts/post-writes';
import { publishPost } from '../../server/services/posts/post-publishing';
import { hashSecret } from '../../server/model/token-secret';
import { domainDatabase, newAccount } from './support';

/**
 * Admitted reads that meet go out as one statement, whatever their tokens (server/admission/lanes.ts). Whatever
 * the mix of tokens and reads that meet, each request gets what it would get alone, and the
 * window's units are each given once.
 */
const parts = domainDatabase();

/** The statement runner of the tests, counting the admission statements sent through it. */
function counting(db: StatementRunner): StatementRunner & { sent: number } {
  const runner = {
    sent: 0,
    run<T>(st: Statement, values: unknown[]) {
      if (st.name.startsWith('admitted_')) runner.sent++;
      return db.run<T>(st, values);
    },
    runWrite: <T>(st: Statement, values: unknown[]) => db.runWrite<T>(st, values),
    transaction: <T>(work: (tx: StatementRunner) => Promise<T>) => db.transaction(work),
  };
  return runner;
}

/** A read's rows without the columns of the admission, which name the batch and not the article. */
const articles = (admitted: Admitted<unknown> | null) =>
  admitted &&
  admitted.rows.map((row) =>
    Object.fromEntries(Object.entries(row as Record<string, unknown>).filter(([k]) => !k.startsWith('adm_'))),
  );

async function authorWithArticles(count: number) {
  const author = await newAccount(parts.db(), { limits: { read_per_min: 1_000_000 } });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const post = await createPost(parts.write(author.id), { title: `Article ${i}`, markdown: `Text ${i}.` });
    if (i % 3 === 0) await publishPost(parts.publishing(), author.id, post.id, false);
    ids.push(post.id);
  }
  const positions = (
    await parts
      .db()
      .run<{ created_at: string; id: string }>(
        { name: 'test_batch_positions', text: 'SELECT created_at::text, id FROM posts WHERE account_id = $1' },
        [author.id],
      )
  ).map((p) => ({ createdAt: p.created_at, id: p.id }));
  return { ...author, digest: hashSecret(author.secret), ids, positions };
}

describe('admission batches', () => {
  it('gives every request of a concurrent mix (tokens, reads, pages) what it gets alone, each unit of a window once', async () => {
    const [a, b] = [await authorWithArticles(7), await authorWithArticles(3)];
    const unknownToken = hashSecret(`dp_live_${randomBytes(32).toString('base64url')}`);
    const db = counting(parts.db());
    // Plain descriptions, so a counterexample reads as requests, not as statements.
    type Described = { id: string } | { page: Parameters<typeof admittedPostPage>[0] } | { me: true };
    const described: fc.Arbitrary<Described> = fc.oneof(
      fc.constantFrom(...a.ids, ...b.ids, randomUUID()).map((id) => ({ id })),
      fc
        .record({
          status: fc.option(fc.constantFrom('draft', 'published' as const), { nil: undefined }),
          after: fc.option(fc.constantFrom(...a.positions, ...b.positions), { nil: undefined }),
          count: fc.integer({ min: 1, max: 9 }),
        })
        .map((page) => ({ page })),
      fc.constant({ me: true as const }),
    );
    const readOf = (d: Described): AdmittedRead<unknown> =>
      'id' in d ? admittedPostRow(d.id) : 'page' in d ? admittedPostPage(d.page) : admittedMediaBytesToday();
    const who = { a: a.digest, b: b.digest, unknown: unknownToken };
    const request = fc.record({ who: fc.constantFrom('a', 'b', 'unknown' as const), read: described });
    let cases = 0;
    let requests = 0;
    const sentBefore = db.sent;
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 40 }), async (mix) => {
        cases++;
        requests += mix.length;
        const together = await Promise.all(mix.map((r) => admitInLane(db, who[r.who], readOf(r.read))));
        for (const [i, r] of mix.entries()) {
          const read = readOf(r.read);
          const [alone] = await runAdmitted(parts.db(), read.statement, [{ digest: who[r.who], values: read.values }]);
          expect(articles(together[i]!)).toEqual(articles(alone!));
          expect(together[i]?.auth.account.id).toBe(alone?.auth.account.id);
        }
        // Each token's units of the minute went to one request each.
        for (const token of ['a', 'b']) {
          const units = together
            .filter((t, i) => t && mix[i]!.who === token)
            .map((t) => `${t!.window.window_start}:${t!.window.count}`);
          expect(new Set(units).size).toBe(units.length);
        }
      }),
      { numRuns: 40 },
    );
    expect(cases).toBe(40);
    // They did meet: fewer statements than requests.
    expect(db.sent - sentBefore).toBeLessThan(requests);
  });

  it('runs a batch that one bad value fails again request by request, so only that one fails', async () => {
    const a = await authorWithArticles(2);
    const db = counting(parts.db());
    const ids = [a.ids[0]!, 'not-a-uuid', a.ids[1]!, randomUUID()];
    const settled = await Promise.allSettled(ids.map((id) => admitInLane(db, a.digest, admittedPostRow(id))));
    // One batch, then each of the four alone.
    expect(db.sent).toBe(5);
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
    const found = settled.map((s) =>
      s.status === 'fulfilled' ? s.value!.rows.map((r) => (r as { id: string }).id) : null,
    );
    expect(found).toEqual([[a.ids[0]], null, [a.ids[1]], []]);
  });

  it('does not hold a lane behind a statement that does not come back: the requests after it go on their own', async () => {
    const a = await authorWithArticles(2);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let first = true;
    const inner = parts.db();
    const db: StatementRunner = {
      async run<T>(st: Statement, values: unknown[]) {
        if (first) {
          first = false;
          await held; // PostgreSQL not answering
        }
        return inner.run<T>(st, values);
      },
      runWrite: (st, values) => inner.runWrite(st, values),
      transaction: (work) => inner.transaction(work),
    };
    const stuck = admitInLane(db, a.digest, admittedPostRow(a.ids[0]!));
    let stuckDone = false;
    void stuck.then(() => (stuckDone = true));
    await new Promise((r) => setTimeout(r, 20));
    const later = await Promise.all(a.ids.map((id) => admitInLane(db, a.digest, admittedPostRow(id))));
    // Answered while the first statement is still out.
    expect(stuckDone).toBe(false);
    expect(later.map((r) => (r!.rows[0] as { id: string }).id)).toEqual(a.ids);
    release();
    expect(((await stuck)!.rows[0] as { id: string }).id).toBe(a.ids[0]);
  });

  it('numbers each account of a shared batch in its own window, as its requests one after another would be', async () => {
    const near = await newAccount(parts.db(), { limits: { read_per_min: 5 } });
    const far = await newAccount(parts.db(), { limits: { read_per_min: 1_000_000 } });
    const db = counting(parts.db());
    const order = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? near : far));
    const got = await Promise.all(
      order.map((who) => admitInLane(db, hashSecret(who.secret), admittedMediaBytesToday())),
    );
    // One statement for both accounts' requests.
    expect(db.sent).toBe(1);
    const units = (who: typeof near) => got.filter((_, i) => order[i] === who).map((g) => g!.window.count);
    // Each account's units run 1, 2, 3… in the order its requests came, whatever the other's.
    const nearUnits = units(near);
    expect(nearUnits).toEqual(nearUnits.map((_, i) => nearUnits[0]! + i));
    const farUnits = units(far);
    expect(farUnits).toEqual(farUnits.map((_, i) => farUnits[0]! + i));
    for (const [i, g] of got.entries()) expect(g!.auth.account.id).toBe(order[i]!.id);
  });

  it('refuses at declaration a read that does not scope itself to the admitted account, and a name declared twice', () => {
    expect(() =>
      admittedStatement<'id', unknown>({
        name: 'admitted_unscoped_test',
        cls: 'read',
        params: { id: 'uuid' },
        read: (p) => sql`SELECT id FROM posts WHERE id = ${p.id}`,
      }),
    ).toThrow(/scope itself to ADMITTED_ACCOUNT/);
    statement('test_declared_once', 'SELECT 1');
    expect(() => statement('test_declared_once', 'SELECT 1')).not.toThrow();
    expect(() => statement('test_declared_once', 'SELECT 2')).toThrow(/declared twice/);
  });
});
