/**
 * The statements of create and edit (server/data/posts/writes.ts): an edit is
 * applied in one statement only while the article is at the version it was decided on, and the
 * `post_tags` rows always follow the article's tags, in order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { publishPost } from '../../server/services/posts/post-publishing';
import { readForEdit, updatePostRow } from '../../server/data/posts/writes';
import { domainDatabase, newAccount, query } from './support';

const parts = domainDatabase();
const write = (accountId: string) => parts.write(accountId);

async function postTagSlugs(postId: string): Promise<string[]> {
  const rows = await query<{ slug: string }>(
    parts.db(),
    'post_tag_slugs',
    'SELECT t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY pt.position',
    [postId],
  );
  return rows.map((r) => r.slug);
}

describe('an edit decided on a version', () => {
  it('is applied by the one-statement path only while every field of the ETag is unchanged', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Seen', markdown: 'Text.' });
    const seen = (await readForEdit(parts.db(), account.id, post.id))!.row;
    // Publishing moves status, published_at and has_unpublished_changes, not updated_at.
    await publishPost(parts.publishing(), account.id, post.id, false);
    const missed = await updatePostRow(
      parts.db(),
      account.id,
      post.id,
      { title: 'Stale decision', hasUnpublishedChanges: false },
      seen,
    );
    expect(missed).toBeNull();
    // Through the service the edit is decided again on the published row: it waits for the next publish.
    const edited = await updatePost(write(account.id), post.id, { title: 'Edited after publish' });
    expect(edited.status).toBe('published');
    expect(edited.has_unpublished_changes).toBe(true);
    expect(edited.title).toBe('Edited after publish');
    expect(Date.parse(edited.updated_at)).toBeGreaterThan(Date.parse(post.updated_at));
  });

  it('moves updated_at strictly forward on every edit, however close together', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Fast', markdown: 'x' });
    let last = Date.parse(post.updated_at);
    for (let i = 0; i < 5; i++) {
      const edited = await updatePost(write(account.id), post.id, { subtitle: `s${i}` });
      const at = Date.parse(edited.updated_at);
      expect(at).toBeGreaterThan(last);
      last = at;
    }
  });
});

describe('a create', () => {
  it('gets every tag, new ones included, while other creates make the same new tags at the same moment', async () => {
    const account = await newAccount(parts.db());
    const fresh = `fresh-${Date.now().toString(36)}`;
    const posts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createPost(write(account.id), {
          title: `Tagged ${i}`,
          markdown: 'x',
          tags: [`${fresh}-a`, 'shared', `${fresh}-b`],
        }),
      ),
    );
    for (const post of posts) {
      expect(post.tags.map((t) => t.slug)).toEqual([`${fresh}-a`, 'shared', `${fresh}-b`]);
      expect(await postTagSlugs(post.id)).toEqual([`${fresh}-a`, 'shared', `${fresh}-b`]);
    }
  });

  it('takes the title’s slug, then -2, -3… for concurrent creates with one title, and 409 for a slug asked for twice', async () => {
    const account = await newAccount(parts.db());
    const posts = await Promise.all(
      Array.from({ length: 5 }, () => createPost(write(account.id), { title: 'One Title', markdown: 'x' })),
    );
    expect(posts.map((p) => p.slug).sort()).toEqual([
      'one-title',
      'one-title-2',
      'one-title-3',
      'one-title-4',
      'one-title-5',
    ]);
    const asked = await Promise.allSettled(
      Array.from({ length: 4 }, () => createPost(write(account.id), { title: 'Asked', markdown: 'x', slug: 'wanted' })),
    );
    expect(asked.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const refused of asked.filter((r) => r.status === 'rejected'))
      expect(String((refused as PromiseRejectedResult).reason)).toContain('slug: "wanted" is already used');
  });
});

describe('post_tags', () => {
  it('follow the tags of every create and edit, in order', async () => {
    const account = await newAccount(parts.db());
    const names = ['alpha', 'beta', 'gamma', 'delta'];
    const tagList = fc.array(fc.constantFrom(...names), { maxLength: 4 }).map((list) => [...new Set(list)]);
    const created = await createPost(write(account.id), { title: 'Tagged', markdown: 'x', tags: ['beta', 'alpha'] });
    expect(await postTagSlugs(created.id)).toEqual(['beta', 'alpha']);
    await fc.assert(
      fc.asyncProperty(tagList, async (tags) => {
        const edited = await updatePost(write(account.id), created.id, { tags });
        expect(edited.tags.map((t) => t.slug)).toEqual(tags);
        expect(await postTagSlugs(created.id)).toEqual(tags);
      }),
      { numRuns: 25 },
    );
    // An edit without tags leaves them as they are.
    const before = await postTagSlugs(created.id);
    await updatePost(write(account.id), created.id, { subtitle: 'no tags sent' });
    expect(await postTagSlugs(created.id)).toEqual(before);
  });
});
