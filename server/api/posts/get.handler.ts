import type { z } from 'zod';
import { getPost } from '../../services/posts';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';
import { answerNotModifiedIfCurrent, sendEtag } from './conditional';

export const getPostHandler = async ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) => {
  const post = await getPost(ctx.em, ctx.auth.account.id, input.id);
  answerNotModifiedIfCurrent(ctx, sendEtag(ctx, post));
  return post;
};
