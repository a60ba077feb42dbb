/**
 * A restore in the history (server/services/posts/revisions.ts `restoreRevision`, labelled through
 * `restored_from`, Migration20261128100000_restored_from): the restore's save says which version
 * it restored, on the article's row and on its copy once a later save replaced it; any other save
 * says nothing, and a save that makes a new version clears the label. The REST view and the ETag
 * are the same as without it.
 */
import { describe, expect, it } from 'vitest';
import { postEtag } from '../../server/services/posts/post-etag';
import { createPost, updatePost } from '../../server/services/posts/post-writes';
import { listRevisions, readRevision, restoreRevision } from '../../server/services/posts/revisions';
import { admitterFor, domainDatabase, newAccount } from './support';

const parts = domainDatabase();

/** An article saved twice: "One." (created), then "Two."; the history's oldest entry is the create. */
async function savedTwice(title: string) {
  const account = await newAccount(parts.db());
  const post = await createPost(parts.write(account.id), { title, markdown: 'One.' });
  await updatePost(parts.write(account.id), post.id, { markdown: 'Two.' });
  const [, created] = await listRevisions(parts.db(), account.id, post.id);
  return { account, post, created: created! };
}

describe('restored revisions', () => {
  it("labels the restore's entry with the time of the version it restored, and no ordinary save", async () => {
    const { account, post, created } = await savedTwice('Restored');
    const restore = await restoreRevision(parts.write(account.id), post.id, created.id);
    expect(restore.revision.savedAt).toBe(created.savedAt);
    expect(restore.post.updated_at > created.savedAt).toBe(true);

    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions.map((r) => r.restoredFrom)).toEqual([created.savedAt, null, null]);
    expect(revisions[0]!.savedAt).toBe(restore.post.updated_at);
    expect((await readRevision(parts.db(), account.id, post.id, revisions[0]!.id)).markdown).toBe('One.');
  });

  it("keeps the label on the restore's copy once an ordinary save replaced it, which the new save does not carry", async () => {
    const { account, post, created } = await savedTwice('Then edited');
    await restoreRevision(parts.write(account.id), post.id, created.id);
    await updatePost(parts.write(account.id), post.id, { markdown: 'Three.' });

    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions.map((r) => r.restoredFrom)).toEqual([null, created.savedAt, null, null]);
    expect((await readRevision(parts.db(), account.id, post.id, revisions[1]!.id)).markdown).toBe('One.');

    // A restore of the restore's copy names the time of that copy, the version it saved again.
    const restoreCopy = revisions[1]!;
    await restoreRevision(parts.write(account.id), post.id, restoreCopy.id);
    const after = await listRevisions(parts.db(), account.id, post.id);
    expect(after.map((r) => r.restoredFrom)).toEqual([restoreCopy.savedAt, null, created.savedAt, null, null]);
  });

  it('keeps the label through a save that changes nothing a reader sees (the version is still the restored one)', async () => {
    const { account, post, created } = await savedTwice('Same text');
    await restoreRevision(parts.write(account.id), post.id, created.id);
    const again = await updatePost(parts.write(account.id), post.id, { markdown: 'One.' });

    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions[0]!.savedAt).toBe(again.updated_at);
    expect(revisions.map((r) => r.restoredFrom)).toEqual([created.savedAt, null, null]);
  });

  it('labels nothing when the restore is refused (If-Match of an older version)', async () => {
    const { account, post, created } = await savedTwice('Refused');
    await expect(
      restoreRevision(parts.write(account.id), post.id, created.id, { ifMatch: postEtag(post) }),
    ).rejects.toMatchObject({ kind: 'stale' });
    const revisions = await listRevisions(parts.db(), account.id, post.id);
    expect(revisions.map((r) => r.restoredFrom)).toEqual([null, null]);
  });

  it("labels exactly the restore's own save, whichever order a racing save lands in", async () => {
    for (let round = 0; round < 4; round++) {
      const { account, post, created } = await savedTwice(`Raced ${round}`);
      // The label is written by the restore's save statement itself: no save can come in between.
      const [restore, other] = await Promise.all([
        restoreRevision(parts.write(account.id), post.id, created.id),
        updatePost(parts.write(account.id), post.id, { markdown: 'Elsewhere.' }),
      ]);
      const revisions = await listRevisions(parts.db(), account.id, post.id);
      expect(revisions.find((r) => r.savedAt === restore.post.updated_at)!.restoredFrom).toBe(created.savedAt);
      expect(revisions.find((r) => r.savedAt === other.updated_at)!.restoredFrom).toBeNull();
    }
  });

  it('changes neither the REST view nor the ETag: the label is no save and no AuthorPost field', async () => {
    const account = await newAccount(parts.db());
    const post = await createPost(parts.write(account.id), { title: 'Contract', markdown: 'One.' });
    await updatePost(parts.write(account.id), post.id, { markdown: 'Two.' });
    const admitted = admitterFor(parts.db(), account.secret);
    const before = await admitted.post(post.id);
    const [, created] = await listRevisions(parts.db(), account.id, post.id);

    const restore = await restoreRevision(parts.write(account.id), post.id, created!.id);
    const after = await admitted.post(post.id);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    expect(after.updated_at).toBe(restore.post.updated_at);
    expect(postEtag(after)).toBe(postEtag(restore.post));
  });
});
