import type { z } from 'zod';
import { readPost } from '../../services/post-reads';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';
import { answerNotModifiedIfCurrent, sendEtag } from './conditional';

export const getPostHandler = async ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) => {
  const post = await readPost(ctx.db, ctx.auth.account.id, input.id);
  answerNotModifiedIfCurrent(ctx, sendEtag(ctx, post));
  return post;
};
