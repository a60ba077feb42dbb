import type { z } from 'zod';
import { deletePost } from '../../services/posts';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';

export const deletePostHandler = async ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) => {
  await deletePost(ctx.em, ctx.auth.account.id, input.id);
  return undefined; // 204: no body
};
