import type { z } from 'zod';
import { readPost } from '../../services/post-reads';
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
  const post = await readPost(ctx.admitAndRead, input.id);
  answerNotModifiedIfCurrent(ctx, sendEtag(ctx, post));
  return post;
};
