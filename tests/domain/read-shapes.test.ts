import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { meHandler } from '../../server/api/me/me.handler';
import { MeOutput } from '../../server/api/me/me.schema';
import { ListPostsOutput } from '../../server/api/posts/list.schema';
import type { AuthorReadFirstContext } from '../../server/api/trpc';
import { createAccount } from '../../server/services/access/accounts';
import { AuthorPostWithHtmlSchema } from '../../server/services/posts/author-post.schema';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { publishPost } from '../../server/services/posts/post-publishing';
import { expectExactly, unknownKeys } from './exact-shape';
import { admitterFor, domainDatabase } from './support';

/**
 * The REST reads no longer pass their results through zod (server/http/rest-procedures.ts
 * writes them with a serializer compiled from the output schema, which drops unknown fields). So the
 * reads themselves are held to the schemas here: every field the schema names, of its type and
 * format, and not one field more, at any depth. A column added to a read statement without its
 * schema field (or the reverse) fails this test.
 */
const parts = domainDatabase();
async function author() {
  const { account, secret } = await createAccount(parts.db(), `shape-${randomUUID().slice(0, 8)}`, {});
  return { ...account, admit: admitterFor(parts.db(), secret) };
}

describe('read results match their REST schemas exactly', () => {
  it('GET /posts/{id} and GET /posts: drafts, published, with unpublished changes, tags, subtitle', async () => {
    const account = await author();
    const write = parts.write(account.id);
    const draft = await createPost(write, { title: 'Draft', markdown: 'Just *text*.' });
    const published = await createPost(parts.write(account.id), {
      title: 'Public',
      subtitle: 'Sub',
      markdown: '# Hi\n\nBody',
      tags: ['Alpha', 'beta'],
    });
    await publishPost(parts.publishing(), account.id, published.id, false);
    await updatePost(parts.write(account.id), published.id, {
      title: 'Public, edited',
    });

    for (const id of [draft.id, published.id]) expectExactly(AuthorPostWithHtmlSchema, await account.admit.post(id));
    const page = await account.admit.page({ limit: 1 });
    expect(page.next_cursor).not.toBeNull();
    expectExactly(ListPostsOutput, page);
    const rest = await account.admit.page({ cursor: page.next_cursor! });
    expect(rest.items).toHaveLength(1);
    expectExactly(ListPostsOutput, rest);
  });

  it('GET /me', async () => {
    const account = await author();
    const ctx = { admitAndRead: account.admit.read } as unknown as AuthorReadFirstContext;
    expectExactly(MeOutput, await meHandler({ ctx }));
  });

  it('notices a field too many or too few (the check itself)', async () => {
    const account = await author();
    const post = await createPost(parts.write(account.id), { title: 'T', markdown: 'x' });
    const read = await account.admit.post(post.id);
    expect(unknownKeys(AuthorPostWithHtmlSchema, { ...read, secret: 1 })).toEqual(['secret']);
    expect(unknownKeys(ListPostsOutput, { items: [{ ...read, tags: [{ slug: 'a', name: 'A', x: 1 }] }] })).toEqual([
      'items[0].tags[0].x',
      // html belongs to GET /posts/{id} only: a list item carrying it is caught too.
      'items[0].html',
    ]);
    const { like_count: _dropped, ...missing } = read;
    expect(AuthorPostWithHtmlSchema.safeParse(missing).success).toBe(false);
  });
});
