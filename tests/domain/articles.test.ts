import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../server/foundation/errors';
import { approvePost, listPending, rejectPost } from '../../server/services/posts/moderation';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { publishPost, unpublishPost } from '../../server/services/posts/post-publishing';
import { postEtag } from '../../server/services/posts/post-etag';
import { admitterFor, newAccount, domainDatabase } from './support';

/** Article rules that need the database: slugs per author, conflicts, versions, moderation, paging. */
const parts = domainDatabase();
const write = (accountId: string) => parts.write(accountId);

async function refusal(work: Promise<unknown>) {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!err) throw new Error('not refused');
  return err;
}

describe('slugs', () => {
  it('gives parallel articles with one title distinct slugs, -2, -3… in turn', async () => {
    const account = await newAccount(parts.db());
    const posts = await Promise.all(
      Array.from({ length: 6 }, () => createPost(write(account.id), { title: 'Same Title', markdown: 'Body.' })),
    );
    expect(posts.map((p) => p.slug).sort()).toEqual(
      ['same-title', 'same-title-2', 'same-title-3', 'same-title-4', 'same-title-5', 'same-title-6'].sort(),
    );
  });

  it('refuses an explicit slug another article of the author has (conflict), and allows it to another author', async () => {
    const [a, b] = [await newAccount(parts.db()), await newAccount(parts.db())];
    await createPost(write(a.id), { title: 'One', markdown: 'x', slug: 'taken' });
    const err = await refusal(createPost(write(a.id), { title: 'Two', markdown: 'y', slug: 'taken' }));
    expect(isDomainError(err, 'conflict')).toBe(true);
    const page = await admitterFor(parts.db(), a.secret).page({});
    expect(page.items.map((p) => p.title)).toEqual(['One']);
    expect((await createPost(write(b.id), { title: 'Two', markdown: 'y', slug: 'taken' })).slug).toBe('taken');
  });
});

describe('versions', () => {
  it('refuses a change against a stale version (stale) and changes nothing', async () => {
    const account = await newAccount(parts.db());
    const created = await createPost(write(account.id), { title: 'V1', markdown: 'x' });
    const firstTag = postEtag(created);
    await updatePost(write(account.id), created.id, { title: 'V2' }, { ifMatch: firstTag });
    const err = await refusal(updatePost(write(account.id), created.id, { title: 'V3' }, { ifMatch: firstTag }));
    expect(isDomainError(err, 'stale')).toBe(true);
    const page = await admitterFor(parts.db(), account.secret).page({});
    expect(page.items[0]!.title).toBe('V2');
  });
});

describe('moderation', () => {
  it("holds a moderated author's publish for review; approval makes the submitted version public", async () => {
    const account = await newAccount(parts.db(), { moderated: true });
    const post = await createPost(write(account.id), { title: 'Review me', markdown: 'Text.' });
    const submitted = await publishPost(parts.publishing(), account.id, post.id, true);
    expect(submitted.status).toBe('pending_moderation');
    expect((await listPending(parts.db())).map((p) => p.id)).toContain(post.id);
    const approved = await approvePost(parts.publishing(), post.id);
    expect(approved.status).toBe('published');
    expect(approved.published_at).not.toBeNull();
    expect((await listPending(parts.db())).map((p) => p.id)).not.toContain(post.id);
    // Approving twice is refused: nothing waits any more.
    expect(isDomainError(await refusal(approvePost(parts.publishing(), post.id)), 'invalid')).toBe(true);
  });

  it('sends a rejected first submission back to draft with the reason, and a rejected edit back to the public version', async () => {
    const account = await newAccount(parts.db(), { moderated: true });
    const post = await createPost(write(account.id), { title: 'First', markdown: 'Text.' });
    await publishPost(parts.publishing(), account.id, post.id, true);
    const rejected = await rejectPost(parts.publishing(), post.id, 'Needs sources');
    expect(rejected.status).toBe('draft');
    expect(rejected.moderation_note).toBe('Needs sources');

    await publishPost(parts.publishing(), account.id, post.id, true);
    await approvePost(parts.publishing(), post.id);
    await updatePost(write(account.id), post.id, { title: 'Edited' });
    await publishPost(parts.publishing(), account.id, post.id, true);
    const kept = await rejectPost(parts.publishing(), post.id, null);
    expect(kept.status).toBe('published');
    expect(kept.has_unpublished_changes).toBe(true);
  });

  it('refuses unpublishing a draft (invalid)', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(write(account.id), { title: 'Draft', markdown: 'x' });
    expect(isDomainError(await refusal(unpublishPost(parts.publishing(), account.id, post.id)), 'invalid')).toBe(true);
  });
});

describe('paging (GET /posts)', () => {
  it("walks every article once, newest first, and refuses another author's cursor", async () => {
    const [a, b] = [await newAccount(parts.db()), await newAccount(parts.db())];
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await createPost(write(a.id), { title: `P${i}`, markdown: 'x' }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let first: string | null = null;
    do {
      const page = await admitterFor(parts.db(), a.secret).page({ limit: 3, cursor });
      seen.push(...page.items.map((p) => p.title));
      first ??= page.next_cursor;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(created.map((p) => p.title).reverse());
    const err = await refusal(admitterFor(parts.db(), b.secret).page({ limit: 3, cursor: first! }));
    expect(isDomainError(err, 'invalid')).toBe(true);
  });
});
