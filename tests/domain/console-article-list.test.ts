/**
 * The console's article list against a real PostgreSQL: each article is shown as the API shows
 * it to its author (one mapper, one rule per field), and the "Last published" sort orders by when
 * the public version was published, which an article waiting for moderation still has while
 * `published_at` is null for it (the contract's rule).
 */
import { describe, expect, it, vi } from 'vitest';
import { listArticles } from '../../server/console/article-search';
import { approvePost } from '../../server/services/posts/moderation';
import { publishPost, unpublishPost } from '../../server/services/posts/post-publishing';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { admitterFor, domainDatabase, newAccount } from './support';

// Next's marker that these modules run on the server only; there is no Next here.
vi.mock('server-only', () => ({}));

const parts = domainDatabase();

describe("the console's article list", () => {
  it("shows every article as GET /posts/{id} shows it, and sorts a waiting edit by its public version's publication", async () => {
    const author = await newAccount(parts.db(), { moderated: true });
    const reads = admitterFor(parts.db(), author.secret);
    const write = parts.write(author.id);
    const publishAndApprove = async (id: string) => {
      await publishPost(parts.publishing(), author.id, id, true);
      await approvePost(parts.publishing(), id);
    };

    // Published, then edited and submitted again: pending moderation, the earlier version public.
    const waiting = await createPost(write, { title: 'Waiting edit', markdown: 'First text.' });
    await publishAndApprove(waiting.id);
    const whilePublished = await reads.post(waiting.id);
    expect(whilePublished.published_at).not.toBeNull();
    await updatePost(write, waiting.id, { markdown: 'Second text.' });
    await publishPost(parts.publishing(), author.id, waiting.id, true);

    const never = await createPost(write, { title: 'Never published', markdown: 'Draft.' });
    const withdrawn = await createPost(write, { title: 'Withdrawn', markdown: 'Gone.' });
    await publishAndApprove(withdrawn.id);
    await unpublishPost(parts.publishing(), author.id, withdrawn.id);
    const live = await createPost(write, { title: 'Live', markdown: 'Public.' });
    await publishAndApprove(live.id);

    const { items } = await listArticles(parts.db(), author.id, { sort: 'published' });

    // Published ones first, the latest at the top; the waiting edit by its public version's time.
    expect(items.map((i) => i.title).slice(0, 2)).toEqual(['Live', 'Waiting edit']);
    expect(new Set(items.slice(2).map((i) => i.id))).toEqual(new Set([never.id, withdrawn.id]));

    const shown = items.find((i) => i.id === waiting.id)!;
    expect(shown.status).toBe('pending_moderation');
    expect(shown.published_at).toBeNull();
    expect(shown.last_published_at).toBe(whilePublished.published_at);

    // Every field the API has, as the API has it; the list adds only `last_published_at`.
    const lastPublished = new Map([
      [live.id, (await reads.post(live.id)).published_at],
      [waiting.id, whilePublished.published_at],
      [never.id, null],
      [withdrawn.id, null],
    ]);
    expect(items).toHaveLength(lastPublished.size);
    for (const item of items) {
      const { html: _html, ...view } = await reads.post(item.id);
      expect(item).toEqual({ ...view, last_published_at: lastPublished.get(item.id) });
    }
  });
});
