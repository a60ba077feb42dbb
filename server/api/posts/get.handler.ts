import type { z } from 'zod';
import { postFound, postRead } from '../../services/posts/post-reads';
import type { AuthorReadFirstContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';
import { answerNotModifiedIfCurrent, sendEtag } from './conditional';

export const getPostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorReadFirstContext;
  input: z.infer<typeof PostIdInput>;
}) => {
  const { rows } = await ctx.admitAndRead(postRead(input.id));
  const post = postFound(rows);
  answerNotModifiedIfCurrent(ctx, sendEtag(ctx, post));
  return post;
};
