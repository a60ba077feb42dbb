import { publishingOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { deletePost } from '../../services/posts/post-publishing';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';
import { writePreconditions } from './conditional';

export const deletePostHandler = async ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) => {
  // No ETag afterwards: there is no article left to have a version.
  await deletePost(publishingOf(ctx.parts), ctx.auth.account.id, input.id, writePreconditions(ctx));
  return undefined; // 204: no body
};
