import { writeContextOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { updatePost } from '../../services/post-writes';
import type { AuthorContext } from '../trpc';
import { sendEtag, writePreconditions } from './conditional';
import type { UpdatePostInput } from './write.schema';

export const updatePostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorContext;
  input: z.infer<typeof UpdatePostInput>;
}) => {
  const { id, ...fields } = input;
  const post = await updatePost(writeContextOf(ctx.parts, ctx.auth), id, fields, writePreconditions(ctx));
  sendEtag(ctx, post);
  return post;
};
