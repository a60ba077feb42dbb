import type { z } from 'zod';
import { readPostPage } from '../../services/post-reads';
import type { AuthorContext } from '../trpc';
import type { ListPostsInput } from './list.schema';

export const listPostsHandler = ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof ListPostsInput> }) =>
  readPostPage(ctx.db, ctx.auth.account.id, input);
