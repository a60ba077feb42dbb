/**
 * The console's article list cursor (`/console?cursor=`) against a real PostgreSQL: the cursors
 * the list gives page through it in every sort, and any other cursor (forged, tampered, from
 * another sort or another account, the old unsigned format) never reaches SQL: the first page,
 * `cursorRefused`, and no error-level log line, run as the page runs it (a failure would go to
 * describeProblem, which logs "console action failed" at error level).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ARTICLE_SORTS, listArticles, type ArticleQuery } from '../../server/console/article-search';
import { describeProblem } from '../../server/console/problems';
import { flushLog } from '../../server/foundation/log';
import { createPost } from '../../server/services/posts/post-writes';
import { domainDatabase, newAccount } from './support';

// Next's marker that these modules run on the server only; there is no Next here.
vi.mock('server-only', () => ({}));

const parts = domainDatabase();

/** What app/console/page.tsx does with the list: a failure becomes describeProblem's sentence. */
async function asThePageDoes(accountId: string, query: ArticleQuery) {
  try {
    return await listArticles(parts.db(), accountId, query);
  } catch (err) {
    return { problem: describeProblem(err) };
  }
}

/** The error-level lines the process wrote while `work` ran. */
async function errorLinesDuring<T>(work: () => Promise<T>): Promise<{ result: T; errors: string[] }> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  try {
    const result = await work();
    flushLog();
    const errors = written
      .join('')
      .split('\n')
      .filter((line) => line.includes('"level":"error"'));
    return { result, errors };
  } finally {
    spy.mockRestore();
  }
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const ZERO_ID = '00000000-0000-0000-0000-000000000000';

describe("the console list's cursor", () => {
  let author: { id: string };
  let other: { id: string };
  const titles: string[] = [];

  beforeAll(async () => {
    author = await newAccount(parts.db());
    other = await newAccount(parts.db());
    for (let i = 1; i <= 25; i++) {
      const title = `Listed ${String(i).padStart(2, '0')}`;
      titles.push(title);
      await createPost(parts.write(author.id), { title, markdown: `Body ${i}.` });
    }
    await createPost(parts.write(other.id), { title: 'Elsewhere', markdown: 'Other body.' });
  });

  afterEach(() => vi.restoreAllMocks());

  // 'published' is below: its cursor on a never-published article does not page yet.
  const PAGED_SORTS = ARTICLE_SORTS.filter((sort) => sort !== 'published');

  it.each(PAGED_SORTS)('pages through every article once with the cursors it gives (sort %s)', async (sort) => {
    const first = await listArticles(parts.db(), author.id, { sort });
    expect(first.cursorRefused).toBe(false);
    expect(first.items).toHaveLength(20);
    expect(first.next).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const second = await listArticles(parts.db(), author.id, { sort, cursor: first.next! });
    expect(second.cursorRefused).toBe(false);
    expect(second.next).toBeNull();
    expect([...first.items, ...second.items].map((i) => i.title).sort()).toEqual(titles);
  });

  it('breaks popularity ties newest first, on every page and in a search', async () => {
    const byCreation = [
      ...(await listArticles(parts.db(), author.id, { sort: 'created' })).items,
      ...(
        await listArticles(parts.db(), author.id, {
          sort: 'created',
          cursor: (await listArticles(parts.db(), author.id, { sort: 'created' })).next!,
        })
      ).items,
    ].map((i) => i.id);
    const first = await listArticles(parts.db(), author.id, { sort: 'popularity' });
    const second = await listArticles(parts.db(), author.id, { sort: 'popularity', cursor: first.next! });
    expect(first.items.every((i) => i.popularity === 0)).toBe(true);
    expect([...first.items, ...second.items].map((i) => i.id)).toEqual(byCreation);
    const searched = await listArticles(parts.db(), author.id, { sort: 'popularity', q: 'listed' });
    const searchedNext = await listArticles(parts.db(), author.id, {
      sort: 'popularity',
      q: 'listed',
      cursor: searched.next!,
    });
    expect([...searched.items, ...searchedNext.items].map((i) => i.id)).toEqual(byCreation);
  });

  // The position's `v` (null) is sent to a statement whose `IS NULL` shape once never used it, and
  // PostgreSQL refused it ("could not determine data type of parameter $2").
  it('pages past the published articles in the published sort (a cursor with v = null)', async () => {
    const first = await listArticles(parts.db(), author.id, { sort: 'published' });
    const second = await listArticles(parts.db(), author.id, { sort: 'published', cursor: first.next! });
    expect(second.cursorRefused).toBe(false);
    expect([...first.items, ...second.items].map((i) => i.title).sort()).toEqual(titles);
  });

  it('refuses a forged cursor (the unsigned {"v":"zzz","id":"0…0"} on popularity): first page, a notice flag, no error log line', async () => {
    const forged = base64url({ v: 'zzz', id: ZERO_ID });
    const { result, errors } = await errorLinesDuring(() =>
      asThePageDoes(author.id, { sort: 'popularity', cursor: forged }),
    );
    expect(errors).toEqual([]);
    expect(result).not.toHaveProperty('problem');
    const page = result as Awaited<ReturnType<typeof listArticles>>;
    expect(page.cursorRefused).toBe(true);
    const firstPage = await listArticles(parts.db(), author.id, { sort: 'popularity' });
    expect(page.items.map((i) => i.id)).toEqual(firstPage.items.map((i) => i.id));
    expect(page.next).toBe(firstPage.next);
  });

  it('refuses tampered, misplaced and malformed cursors the same way, in every sort', async () => {
    const created = (await listArticles(parts.db(), author.id, { sort: 'created' })).next!;
    const popular = (await listArticles(parts.db(), author.id, { sort: 'popularity' })).next!;
    const [payload, mac] = created.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const bad: [string, ArticleQuery][] = [
      // Another value under the original signature.
      [`${base64url({ ...decoded, v: 'zzz' })}.${mac}`, { sort: 'created' }],
      [`${base64url({ ...decoded, v: 'zzz' })}.${mac}`, { sort: 'popularity' }],
      [`${payload}.${flipped}`, { sort: 'created' }],
      [payload, { sort: 'created' }],
      [`${payload}.`, { sort: 'created' }],
      ['garbage', { sort: 'updated' }],
      ['.', { sort: 'published' }],
      ['x'.repeat(5000), { sort: 'created' }],
      // A genuine cursor of one sort used in another: its key would not fit the other's SQL.
      [created, { sort: 'popularity' }],
      [popular, { sort: 'created' }],
      [popular, { sort: 'published' }],
      // The unsigned cursors of the previous format, whatever they hold.
      [base64url({ v: 'zzz', id: ZERO_ID }), { sort: 'created' }],
      [base64url({ v: 99, id: ZERO_ID }), { sort: 'popularity' }],
      [base64url({ v: null, id: "0'; DROP TABLE posts; --" }), { sort: 'published' }],
    ];
    const { result, errors } = await errorLinesDuring(() =>
      Promise.all(bad.map(([cursor, query]) => asThePageDoes(author.id, { ...query, cursor }))),
    );
    expect(errors).toEqual([]);
    result.forEach((page, i) => {
      expect(page, `cursor #${i}`).not.toHaveProperty('problem');
      const listed = page as Awaited<ReturnType<typeof listArticles>>;
      expect(listed.cursorRefused, `cursor #${i}`).toBe(true);
      expect(listed.items, `cursor #${i}`).toHaveLength(20);
    });
  });

  it("refuses one account's cursor to another account (it names a place in someone else's list)", async () => {
    const mine = (await listArticles(parts.db(), author.id, { sort: 'created' })).next!;
    const theirs = await listArticles(parts.db(), other.id, { sort: 'created', cursor: mine });
    expect(theirs.cursorRefused).toBe(true);
    expect(theirs.items.map((i) => i.title)).toEqual(['Elsewhere']);
  });

  it('takes no cursor (or an empty one) as the first page, without a notice', async () => {
    for (const cursor of [undefined, '']) {
      const page = await listArticles(parts.db(), author.id, { sort: 'updated', cursor });
      expect(page.cursorRefused).toBe(false);
      expect(page.items).toHaveLength(20);
    }
  });
});
