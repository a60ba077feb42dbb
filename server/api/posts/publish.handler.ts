import { publishingOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { publishPost } from '../../services/posts/post-publishing';
import type { AuthorContext } from '../trpc';
import type { PostIdOnlyInput } from './by-id.schema';
import { sendEtag, writePreconditions } from './conditional';

export const publishPostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorContext;
  input: z.infer<typeof PostIdOnlyInput>;
}) => {
  const post = await publishPost(
    publishingOf(ctx.parts),
    ctx.auth.account.id,
    input.id,
    ctx.auth.account.isModerated,
    writePreconditions(ctx),
  );
  sendEtag(ctx, post);
  return post;
};
