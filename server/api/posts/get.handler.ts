import type { z } from 'zod';
import { readPost } from '../../services/post-reads';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';

export const getPostHandler = ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) =>
  readPost(ctx.db, ctx.auth.account.id, input.id);
