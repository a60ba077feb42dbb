import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPostHandler } from '../../server/api/posts/create.handler';
import { deletePostHandler } from '../../server/api/posts/delete.handler';
import { publishPostHandler } from '../../server/api/posts/publish.handler';
import { unpublishPostHandler } from '../../server/api/posts/unpublish.handler';
import { updatePostHandler } from '../../server/api/posts/update.handler';
import type { AuthorContext, AuthorReadFirstContext } from '../../server/api/trpc';
import { createAccount } from '../../server/services/access/accounts';
import { AuthorPostSchema, AuthorPostWriteSchema } from '../../server/services/posts/author-post.schema';
import { expectExactly, unknownKeys } from './exact-shape';
import { admitterFor, domainDatabase } from './support';

/**
 * Writes, like reads, are written by a serializer compiled from their output schema
 * (server/http/rest-procedures.ts) rather than validated by zod on every call. So what the write
 * resolvers return is held to those schemas here, exactly: POST /posts and PATCH /posts/{id} to
 * AuthorPostWriteSchema (with and without `rehost_failed` and `warnings`), publish to
 * AuthorPostSchema, unpublish and delete to nothing (204). A field added to the write view
 * without its schema field, a missing one, or `rehost_failed: []` fails here. (POST
 * /media/from-url returns the Media that POST /media writes as is: the integration suite holds
 * both to the OpenAPI document, which allows no other field.)
 */
const parts = domainDatabase();

/**
 * A REST handler's context for a new author (both kinds: admitted before the handler, and
 * admitted by the handler's first read). `mediaPerMin: 0`: every external image fails to be
 * stored before anything is downloaded (the media minute window is used up), so the write
 * answers with both optional fields, `rehost_failed` and `warnings`.
 */
async function authorContext({ noMedia = false } = {}) {
  const limits = noMedia ? { media_per_min: 0 } : {};
  const { account, secret } = await createAccount(parts.db(), `wshape-${randomUUID().slice(0, 8)}`, { limits });
  const headers = new Map<string, string>();
  return () =>
    ({
      parts: parts.parts(),
      headers: { get: (name: string) => headers.get(name) ?? null },
      res: { setHeader() {}, chargedTo() {} },
      auth: { account, tokenId: undefined },
      // PATCH admits its caller with its first read (api/trpc.ts `authorReadFirstProcedure`).
      admitAndRead: admitterFor(parts.db(), secret).read,
    }) as unknown as AuthorContext & AuthorReadFirstContext;
}

/** The write view carries one console-only field, `rehostCauses`, that the REST output leaves out by design. */
function restFields(result: unknown) {
  const { rehostCauses: _consoleOnly, ...rest } = result as Record<string, unknown>;
  return rest;
}

describe('write results match their REST schemas exactly', () => {
  it('POST /posts, PATCH /posts/{id}, publish, unpublish, delete', async () => {
    const ctx = await authorContext();
    const created = await createPostHandler({
      ctx: ctx(),
      input: { title: 'Shape', markdown: '# Hi\n\nBody', subtitle: 'Sub', tags: ['Alpha'] },
    });
    expect(created).not.toHaveProperty('rehost_failed');
    expectExactly(AuthorPostWriteSchema, restFields(created));
    const updated = await updatePostHandler({ ctx: ctx(), input: { id: created.id, title: 'Shape, edited' } });
    expectExactly(AuthorPostWriteSchema, restFields(updated));
    const published = await publishPostHandler({ ctx: ctx(), input: { id: created.id } });
    expectExactly(AuthorPostSchema, published);
    expect(await unpublishPostHandler({ ctx: ctx(), input: { id: created.id } })).toBeUndefined();
    expect(await deletePostHandler({ ctx: ctx(), input: { id: created.id } })).toBeUndefined();
  });

  it('with rehost_failed and warnings, on create and on update', async () => {
    const ctx = await authorContext({ noMedia: true });
    const markdown = 'Text.\n\n![a](https://images.example/a.png)';
    const created = await createPostHandler({ ctx: ctx(), input: { title: 'Images', markdown } });
    expect(created.rehost_failed).toEqual(['https://images.example/a.png']);
    expect(created.warnings).toEqual([
      expect.stringMatching(/media limit of 0 per minute reached; 1 image\(s\) not stored/),
    ]);
    expectExactly(AuthorPostWriteSchema, restFields(created));
    const updated = await updatePostHandler({
      ctx: ctx(),
      input: { id: created.id, markdown: `${markdown}\n\n![b](https://images.example/b.png)` },
    });
    expect(updated.rehost_failed?.length).toBeGreaterThan(0);
    expectExactly(AuthorPostWriteSchema, restFields(updated));
  });

  it('notices a write field too many, one missing, or an empty rehost_failed (the check itself)', async () => {
    const ctx = await authorContext();
    const post = restFields(await createPostHandler({ ctx: ctx(), input: { title: 'T', markdown: 'x' } }));
    expect(unknownKeys(AuthorPostWriteSchema, { ...post, html: '<p>x</p>' })).toEqual(['html']);
    const { created_at: _dropped, ...missing } = post;
    expect(AuthorPostWriteSchema.safeParse(missing).success).toBe(false);
    expect(AuthorPostWriteSchema.safeParse({ ...post, rehost_failed: [] }).success).toBe(false);
  });
});
