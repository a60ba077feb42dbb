/**
 * The console editor's autosave, server side (Migration20261128200000_autosave_runs, server/
 * console/console-charges.ts):
 * - a run of autosaves of one editor visit is one entry of the history, its newest autosave's
 *   version, marked autosaved; a manual save, an API write, a publication move, another visit's
 *   autosave or AUTOSAVE_RUN_MINUTES since the run's first autosave end the run;
 * - the REST view and the ETag are the same as for any save;
 * - an autosave takes a unit of the `write` window only while the window is below half of the
 *   limit, and otherwise takes nothing, so an integration always keeps the other half.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { chargeWindow, chargeWindowBelow } from '../../server/admission/window-charge';
import { AUTOSAVE_RUN_MINUTES } from '../../server/data/posts/writes';
import { AUTOSAVE, AutosaveWaits, autosaveCeiling, spend } from '../../server/console/console-charges';
import type { Account } from '../../server/model/account';
import { createAccount, type LimitOverrides } from '../../server/services/access/accounts';
import { postEtag } from '../../server/services/posts/post-etag';
import { publishPost, unpublishPost } from '../../server/services/posts/post-publishing';
import { createPost, editFound, editRead, updatePost } from '../../server/services/posts/post-writes';
import { listRevisions, readRevision } from '../../server/services/posts/revisions';
import { admitterFor, awayFromMinuteBoundary, domainDatabase, newAccount, query } from './support';

// Next's marker that the console's modules run on the server only; there is no Next here.
vi.mock('server-only', () => ({}));

const parts = domainDatabase();
const db = () => parts.db();

type Author = Awaited<ReturnType<typeof newAccount>>;

/** An article created as "Created.", then saved by hand as "Before.": the history before any run. */
async function article(title: string) {
  const account = await newAccount(db());
  const post = await createPost(parts.write(account.id), { title, markdown: 'Created.' });
  await updatePost(parts.write(account.id), post.id, { markdown: 'Before.' });
  return { account, post };
}

/** The editor's autosave of `markdown` in the visit `visit` (what saveArticle runs for one). */
const autosave = (accountId: string, postId: string, visit: string, markdown: string) =>
  updatePost(parts.write(accountId), postId, { markdown }, { autosaveVisit: visit });

/** The history, newest first, as [Markdown, autosaved] pairs. */
async function history(accountId: string, postId: string): Promise<[string, boolean][]> {
  const revisions = await listRevisions(db(), accountId, postId);
  return Promise.all(
    revisions.map(async (r) => [(await readRevision(db(), accountId, postId, r.id)).markdown, r.autosaved]),
  );
}

describe('autosave runs in the history', () => {
  it("keeps one entry for a run of autosaves, the newest one's, marked autosaved; the version before stays", async () => {
    const { account, post } = await article('One run');
    const visit = randomUUID();
    for (const text of ['Auto 1.', 'Auto 2.', 'Auto 3.']) await autosave(account.id, post.id, visit, text);

    expect(await history(account.id, post.id)).toEqual([
      ['Auto 3.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
    // Then a manual save: the run's newest autosave stays as its own entry, still marked.
    await updatePost(parts.write(account.id), post.id, { markdown: 'By hand.' });
    expect(await history(account.id, post.id)).toEqual([
      ['By hand.', false],
      ['Auto 3.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
  });

  /** Autosaves "Auto 1." and "Auto 2." of one visit, `between`, then "Auto 3." and "Auto 4." of the same visit. */
  async function runEndedBy(between: (account: Author, postId: string) => Promise<unknown>) {
    const { account, post } = await article('Ended');
    const visit = randomUUID();
    await autosave(account.id, post.id, visit, 'Auto 1.');
    await autosave(account.id, post.id, visit, 'Auto 2.');
    await between(account, post.id);
    await autosave(account.id, post.id, visit, 'Auto 3.');
    await autosave(account.id, post.id, visit, 'Auto 4.');
    return history(account.id, post.id);
  }

  it('ends the run at a manual save (the console without a visit)', async () => {
    const entries = await runEndedBy(async (account, postId) => {
      expect((await listRevisions(db(), account.id, postId))[0]!.autosaved).toBe(true);
      // As saveArticle runs a save without an `autosave` field: If-Match, no visit.
      const { etag } = await restView(account, postId);
      return updatePost(parts.write(account.id), postId, { markdown: 'Manual.' }, { ifMatch: etag });
    });
    expect(entries).toEqual([
      ['Auto 4.', true],
      ['Manual.', false],
      ['Auto 2.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
  });

  it('ends the run at an API write (PATCH: the admitted read, then updatePost without a visit)', async () => {
    const entries = await runEndedBy(async (account, postId) => {
      const { rows } = await admitterFor(db(), account.secret).read(editRead(postId));
      return updatePost(parts.write(account.id), postId, { markdown: 'From the API.' }, {}, editFound(rows));
    });
    expect(entries).toEqual([
      ['Auto 4.', true],
      ['From the API.', false],
      ['Auto 2.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
  });

  it('ends the run at a publication move (publish, unpublish), which itself records no version', async () => {
    for (const move of ['publish', 'unpublish'] as const) {
      const entries = await runEndedBy(async (account, postId) => {
        await publishPost(parts.publishing(), account.id, postId, false);
        if (move === 'unpublish') await unpublishPost(parts.publishing(), account.id, postId);
        // The working version is still the autosave's, and says so.
        expect((await listRevisions(db(), account.id, postId))[0]!.autosaved).toBe(true);
      });
      expect(entries, move).toEqual([
        ['Auto 4.', true],
        ['Auto 2.', true],
        ['Before.', false],
        ['Created.', false],
      ]);
    }
  });

  it("ends the run at another visit's autosave", async () => {
    const { account, post } = await article('Two visits');
    const [first, second] = [randomUUID(), randomUUID()];
    await autosave(account.id, post.id, first, 'First 1.');
    await autosave(account.id, post.id, first, 'First 2.');
    await autosave(account.id, post.id, second, 'Second 1.');
    await autosave(account.id, post.id, second, 'Second 2.');
    expect(await history(account.id, post.id)).toEqual([
      ['Second 2.', true],
      ['First 2.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
  });

  it(`ends the run ${AUTOSAVE_RUN_MINUTES} minutes after its first autosave, not before`, async () => {
    const { account, post } = await article('Long visit');
    const visit = randomUUID();
    // Time is simulated: the run's start is moved back with SQL (no save: `updated_at` stays).
    const backdate = (minutes: number) =>
      query(
        db(),
        `backdate_${minutes}`,
        `UPDATE posts SET autosave_since = autosave_since - make_interval(mins => $2) WHERE id = $1`,
        [post.id, minutes],
      );
    await autosave(account.id, post.id, visit, 'Auto 1.');
    await backdate(AUTOSAVE_RUN_MINUTES - 1);
    await autosave(account.id, post.id, visit, 'Auto 2.'); // still within the run
    await backdate(2); // the run began AUTOSAVE_RUN_MINUTES + 1 minutes ago
    await autosave(account.id, post.id, visit, 'Auto 3.'); // starts a new run
    await autosave(account.id, post.id, visit, 'Auto 4.');
    expect(await history(account.id, post.id)).toEqual([
      ['Auto 4.', true],
      ['Auto 2.', true],
      ['Before.', false],
      ['Created.', false],
    ]);
  });

  it('keeps its revision count: a whole run of autosaves stores one row for the version before it', async () => {
    const { account, post } = await article('Stored rows');
    const visit = randomUUID();
    for (let i = 1; i <= 20; i++) await autosave(account.id, post.id, visit, `Auto ${i}.`);
    const [row] = await query<{ n: string }>(
      db(),
      'stored_rows',
      'SELECT count(*) AS n FROM post_revisions WHERE post_id = $1',
      [post.id],
    );
    expect(Number(row!.n)).toBe(2); // "Created." and "Before."
  });
});

/** The article as GET /posts/{id} shows it to the author, and its ETag. */
async function restView(account: Author, postId: string) {
  const post = await admitterFor(db(), account.secret).post(postId);
  return { post, etag: postEtag(post) };
}

describe('autosaves and the contract', () => {
  it('change neither the REST view nor the ETag: an autosave is a save like any other there', async () => {
    const account = await newAccount(db());
    const plain = await createPost(parts.write(account.id), { title: 'Plain', markdown: 'One.' });
    await updatePost(parts.write(account.id), plain.id, { markdown: 'Two.' });
    const auto = await createPost(parts.write(account.id), { title: 'Auto', markdown: 'One.' });
    const saved = await autosave(account.id, auto.id, randomUUID(), 'Two.');

    const { post: plainView } = await restView(account, plain.id);
    const { post: autoView, etag } = await restView(account, auto.id);
    expect(Object.keys(autoView)).toEqual(Object.keys(plainView));
    expect(Object.keys(saved).sort()).toEqual(
      Object.keys(await updatePost(parts.write(account.id), plain.id, { markdown: 'Three.' })).sort(),
    );
    expect(autoView.updated_at).toBe(saved.updated_at);
    expect(etag).toBe(postEtag(saved));
    expect(autoView.has_unpublished_changes).toBe(saved.has_unpublished_changes);
  });

  it('take If-Match as any save: the current ETag saves, an older one is refused as stale', async () => {
    const account = await newAccount(db());
    const post = await createPost(parts.write(account.id), { title: 'Conditional', markdown: 'One.' });
    const visit = randomUUID();
    const first = await updatePost(
      parts.write(account.id),
      post.id,
      { markdown: 'Two.' },
      { ifMatch: postEtag(post), autosaveVisit: visit },
    );
    await expect(
      updatePost(
        parts.write(account.id),
        post.id,
        { markdown: 'Three.' },
        { ifMatch: postEtag(post), autosaveVisit: visit },
      ),
    ).rejects.toMatchObject({ kind: 'stale' });
    await updatePost(
      parts.write(account.id),
      post.id,
      { markdown: 'Three.' },
      { ifMatch: postEtag(first), autosaveVisit: visit },
    );
    expect(await history(account.id, post.id)).toEqual([
      ['Three.', true],
      ['One.', false],
    ]);
  });
});

async function limitedAccount(limits: LimitOverrides): Promise<Account> {
  return (await createAccount(db(), `as-${randomUUID().slice(0, 12)}`, { limits })).account;
}

async function windowCount(accountId: string): Promise<number | null> {
  const [row] = await query<{ count: number }>(
    db(),
    'write_window',
    `SELECT count FROM rate_windows WHERE account_id = $1 AND class = 'write'
      ORDER BY window_start DESC LIMIT 1`,
    [accountId],
  );
  return row ? Number(row.count) : null;
}

describe('autosaves and the write limit', () => {
  it('chargeWindowBelow takes units while the count before is below the ceiling, then nothing', async () => {
    const author = await limitedAccount({ write_per_min: 6 });
    await awayFromMinuteBoundary();
    const charges = [];
    for (let i = 0; i < 5; i++) charges.push(await chargeWindowBelow(db(), author, 'write', 3));
    expect(charges.map((c) => c.charged)).toEqual([true, true, true, false, false]);
    expect(charges.map((c) => c.count)).toEqual([1, 2, 3, null, null]);
    expect(await windowCount(author.id)).toBe(3); // the refused ones counted nothing
    for (const c of charges) {
      expect(c.reset % 60).toBe(0);
      expect(c.retryAfter).toBeGreaterThanOrEqual(1);
      expect(c.retryAfter).toBeLessThanOrEqual(60);
    }
    // A regular charge still has the rest of the limit.
    const regular = [];
    for (let i = 0; i < 4; i++) regular.push((await chargeWindow(db(), author, 'write')).allowed);
    expect(regular).toEqual([true, true, true, false]);
  });

  it('is exact under concurrency, and takes nothing from a fresh window when the ceiling is 0', async () => {
    const author = await limitedAccount({ write_per_min: 10 });
    await awayFromMinuteBoundary();
    const charges = await Promise.all(Array.from({ length: 20 }, () => chargeWindowBelow(db(), author, 'write', 5)));
    expect(charges.filter((c) => c.charged)).toHaveLength(5);
    expect(
      charges
        .filter((c) => c.charged)
        .map((c) => c.count)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    expect(await windowCount(author.id)).toBe(5);

    const none = await limitedAccount({ write_per_min: 1 });
    expect((await chargeWindowBelow(db(), none, 'write', 0)).charged).toBe(false);
    expect(await windowCount(none.id)).toBeNull(); // no window row was even started
    expect((await chargeWindow(db(), none, 'write')).allowed).toBe(true);
  });

  it("the console's autosave charge: half the limit for autosaves, then waits; manual saves keep the full limit", async () => {
    const account = await limitedAccount({ write_per_min: 7 });
    const auth = { tokenId: randomUUID(), account };
    expect(autosaveCeiling(7)).toBe(3);
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) await spend(db(), auth, AUTOSAVE);
    const refused = await spend(db(), auth, AUTOSAVE).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AutosaveWaits);
    expect((refused as AutosaveWaits).message).toMatch(/^Autosave waits for the next minute: /);
    expect((refused as AutosaveWaits).seconds).toBeGreaterThanOrEqual(1);
    expect((refused as AutosaveWaits).seconds).toBeLessThanOrEqual(60);
    expect(await windowCount(account.id)).toBe(3);

    // Manual saves (and PATCH) are charged as ever, up to the full limit.
    for (let i = 0; i < 4; i++) await spend(db(), auth, 'write');
    await expect(spend(db(), auth, 'write')).rejects.toThrow(/used all 7 changes allowed per minute/);
    await expect(spend(db(), auth, AUTOSAVE)).rejects.toBeInstanceOf(AutosaveWaits);
  });

  it('leaves an integration that used half of the minute no autosave at all, and its own writes intact', async () => {
    const account = await limitedAccount({ write_per_min: 4 });
    const auth = { tokenId: randomUUID(), account };
    await awayFromMinuteBoundary();
    expect((await chargeWindow(db(), account, 'write')).allowed).toBe(true);
    expect((await chargeWindow(db(), account, 'write')).allowed).toBe(true);
    await expect(spend(db(), auth, AUTOSAVE)).rejects.toBeInstanceOf(AutosaveWaits);
    expect((await chargeWindow(db(), account, 'write')).allowed).toBe(true);
    expect((await chargeWindow(db(), account, 'write')).allowed).toBe(true);
    expect((await chargeWindow(db(), account, 'write')).allowed).toBe(false);
  });
});
