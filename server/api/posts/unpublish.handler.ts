import { publishingOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { unpublishPost } from '../../services/posts/post-publishing';
import type { AuthorContext } from '../trpc';
import type { PostIdOnlyInput } from './by-id.schema';
import { sendEtag, writePreconditions } from './conditional';

export const unpublishPostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorContext;
  input: z.infer<typeof PostIdOnlyInput>;
}) => {
  const post = await unpublishPost(publishingOf(ctx.parts), ctx.auth.account.id, input.id, writePreconditions(ctx));
  // 204 without a body, but the article still exists: its new version's tag lets the next
  // conditional write go ahead without a GET.
  sendEtag(ctx, post);
  return undefined;
};
