import { writeContextOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { createPost } from '../../services/posts/post-writes';
import type { AuthorContext } from '../trpc';
import { sendEtag } from './conditional';
import type { CreatePostInput } from './write.schema';

export const createPostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorContext;
  input: z.infer<typeof CreatePostInput>;
}) => {
  const post = await createPost(writeContextOf(ctx.parts, ctx.auth), input);
  sendEtag(ctx, post);
  return post;
};
