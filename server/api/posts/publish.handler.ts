import type { z } from 'zod';
import { publishPost } from '../../services/posts';
import type { AuthorContext } from '../trpc';
import type { PostIdInput } from './by-id.schema';

export const publishPostHandler = ({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof PostIdInput> }) =>
  publishPost(ctx.em, ctx.auth.account.id, input.id, ctx.auth.account.isModerated);
