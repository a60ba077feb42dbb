import { writeContextOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { editFound, editRead, updatePost } from '../../services/posts/post-writes';
import type { AuthorReadFirstContext } from '../trpc';
import { sendEtag, writePreconditions } from './conditional';
import type { UpdatePostInput } from './write.schema';

/** PATCH /posts/{id}: the edit's first read admits the author (one statement), then the edit. */
export const updatePostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorReadFirstContext;
  input: z.infer<typeof UpdatePostInput>;
}) => {
  const { id, ...fields } = input;
  const { auth, rows } = await ctx.admitAndRead(editRead(id));
  const post = await updatePost(writeContextOf(ctx.parts, auth), id, fields, writePreconditions(ctx), editFound(rows));
  sendEtag(ctx, post);
  return post;
};
