/**
 * The history of every save (server/services/posts/revisions.ts, recorded by the migration's trigger):
 * each create and each save that changes what readers would see is a revision with the token
 * it came through, an article keeps only its newest REVISIONS_KEPT, and deleting it drops them.
 */
import { describe, expect, it } from 'vitest';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { deletePost, publishPost } from '../../server/services/posts/post-publishing';
import { listRevisions, readRevision, REVISIONS_KEPT } from '../../server/services/posts/revisions';
import { createToken, listTokens } from '../../server/services/access/tokens';
import { domainDatabase, newAccount, query } from './support';

const parts = domainDatabase();
const write = (accountId: string, tokenId?: string) => ({ ...parts.write(accountId), tokenId });

async function storedRevisionRows(postId: string): Promise<number> {
  const [row] = await query<{ n: string }>(
    parts.db(),
    'revision_rows',
    'SELECT count(*) AS n FROM post_revisions WHERE post_id = $1',
    [postId],
  );
  return Number(row!.n);
}

describe('revisions', () => {
  it('records the create and each save with its token, and nothing for a save or publish that changes nothing', async () => {
    const account = await newAccount(parts.db());
    const [first] = await listTokens(parts.db(), account.id);
    const { token: second } = await createToken(parts.db(), account.id, 'ci-sync');
    const post = await createPost(write(account.id, first!.id), { title: 'History', markdown: 'One.' });
    await updatePost(write(account.id, second.id), post.id, { markdown: 'One. Two.' });
    await updatePost(write(account.id, second.id), post.id, { markdown: 'One. Two.' }); // the same text
    await publishPost(parts.publishing(), account.id, post.id, false);
    await updatePost(write(account.id, first!.id), post.id, { title: 'History, edited' });

    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions.map((r) => [r.title, r.tokenName])).toEqual([
      ['History, edited', first!.name],
      ['History', 'ci-sync'],
      ['History', first!.name],
    ]);
    const oldest = await readRevision(parts.db(), account.id, post.id, revisions[2]!.id);
    expect(oldest.markdown).toBe('One.');
    expect(oldest.html).toContain('One.');
    const middle = await readRevision(parts.db(), account.id, post.id, revisions[1]!.id);
    expect(middle.markdown).toBe('One. Two.');
  });

  it(`keeps only the newest ${REVISIONS_KEPT} revisions of an article, however many saves it gets`, async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Bounded', markdown: 'Save 0.' });
    const saves = REVISIONS_KEPT + 15;
    for (let i = 1; i <= saves; i++) await updatePost(write(account.id), post.id, { markdown: `Save ${i}.` });

    // The article's row is the newest; the table keeps the ones before it.
    expect(await storedRevisionRows(post.id)).toBe(REVISIONS_KEPT - 1);
    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions).toHaveLength(REVISIONS_KEPT);
    const newest = await readRevision(parts.db(), account.id, post.id, revisions[0]!.id);
    const oldestKept = await readRevision(parts.db(), account.id, post.id, revisions.at(-1)!.id);
    expect(newest.markdown).toBe(`Save ${saves}.`);
    expect(oldestKept.markdown).toBe(`Save ${saves - REVISIONS_KEPT + 1}.`);
  });

  it('holds the bound under concurrent saves of one article', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Busy', markdown: 'Start.' });
    // Rounds of 20 at once (an account's conversion queue holds 32).
    for (let round = 0; round < 3; round++)
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          updatePost(write(account.id), post.id, { markdown: `Concurrent ${round}.${i}.` }),
        ),
      );
    expect(await storedRevisionRows(post.id)).toBe(REVISIONS_KEPT - 1);
    expect(await listRevisions(parts.db(), account.id, post.id)).toHaveLength(REVISIONS_KEPT);
  });

  it('costs nothing for an article never edited: its row is its only revision', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Untouched', markdown: 'As created.' });
    expect(await storedRevisionRows(post.id)).toBe(0);
    const [only] = await listRevisions(parts.db(), account.id, post.id);
    expect((await readRevision(parts.db(), account.id, post.id, only!.id)).markdown).toBe('As created.');
  });

  it("is the author's own: another author's article and a deleted one have none to show", async () => {
    const account = await newAccount(parts.db());
    const other = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Mine', markdown: 'Text.' });
    const [revision] = await listRevisions(parts.db(), account.id, post.id);
    await expect(listRevisions(parts.db(), other.id, post.id)).resolves.toEqual([]);
    await expect(readRevision(parts.db(), other.id, post.id, revision!.id)).rejects.toMatchObject({
      kind: 'not_found',
    });

    await updatePost(write(account.id), post.id, { markdown: 'Edited.' });
    expect(await storedRevisionRows(post.id)).toBe(1);
    await deletePost(parts.publishing(), account.id, post.id);
    expect(await storedRevisionRows(post.id)).toBe(0);
  });
});
