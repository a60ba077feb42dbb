import type { z } from 'zod';
import { createPost } from '../../services/posts';
import { rehosterFor } from '../../services/rehost-wiring';
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
  const post = await createPost(
    { em: ctx.em, accountId: ctx.auth.account.id, rehoster: rehosterFor(ctx.em, ctx.auth) },
    input,
  );
  sendEtag(ctx, post);
  return post;
};
