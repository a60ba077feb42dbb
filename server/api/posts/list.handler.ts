import type { z } from 'zod';
import { readPostPage } from '../../services/post-reads';
import type { AuthorReadContext } from '../trpc';
import type { ListPostsInput } from './list.schema';

export const listPostsHandler = ({ ctx, input }: { ctx: AuthorReadContext; input: z.infer<typeof ListPostsInput> }) =>
  readPostPage(ctx.admitAndRead, input);
