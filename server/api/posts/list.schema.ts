import { z } from 'zod';
import { AuthorPostSchema } from '../shared.schema';

/** GET /posts query: status filter, limit 1–50 (default 20), opaque cursor. */
export const ListPostsInput = z.object({
  status: z.enum(['draft', 'pending_moderation', 'published'], { error: 'must be draft, pending_moderation or published' }).optional(),
  limit: z.number({ error: 'must be an integer from 1 to 50' }).int('must be an integer from 1 to 50').min(1, 'must be an integer from 1 to 50').max(50, 'at most 50').optional(),
  cursor: z.string().optional(),
});

export const ListPostsOutput = z.object({
  items: z.array(AuthorPostSchema),
  next_cursor: z.string().nullable(),
});
