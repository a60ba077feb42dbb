import type { z } from 'zod';
import { getPost } from '../../services/posts';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';

export const getPostHandler = ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) =>
  getPost(ctx.em, ctx.auth.account.id, input.id);
