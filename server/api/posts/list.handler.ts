import type { z } from 'zod';
import { pageFound, pageRequest } from '../../services/posts/post-reads';
import type { AuthorReadFirstContext } from '../trpc';
import type { ListPostsInput } from './list.schema';

export const listPostsHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorReadFirstContext;
  input: z.infer<typeof ListPostsInput>;
}) => {
  const request = pageRequest(input);
  const { auth, rows } = await ctx.admitAndRead(request.read);
  return pageFound(request, auth.account.id, rows);
};
