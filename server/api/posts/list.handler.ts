import type { z } from 'zod';
import { readPostPage } from '../../services/post-reads';
import type { AuthorReadFirstContext } from '../trpc';
import type { ListPostsInput } from './list.schema';

export const listPostsHandler = ({
  ctx,
  input,
}: {
  ctx: AuthorReadFirstContext;
  input: z.infer<typeof ListPostsInput>;
}) => readPostPage(ctx.admitAndRead, input);
