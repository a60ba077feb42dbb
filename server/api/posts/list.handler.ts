import type { z } from 'zod';
import { listPosts } from '../../services/posts';
import type { AuthorContext } from '../trpc';
import type { ListPostsInput } from './list.schema';

export const listPostsHandler = ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof ListPostsInput> }) =>
  listPosts(ctx.em, ctx.auth.account.id, input);
