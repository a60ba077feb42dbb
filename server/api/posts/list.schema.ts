import { z } from 'zod';
import { LIST_MAX } from '../../services/post-reads';
import { AuthorPostSchema } from '../../services/author-post.schema';

const LIMIT_TEXT = `must be an integer from 1 to ${LIST_MAX}`;

/** GET /posts query: status filter, limit 1–LIST_MAX (default LIST_DEFAULT, services/post-reads.ts), opaque cursor. */
export const ListPostsInput = z.object({
  status: z
    .enum(['draft', 'pending_moderation', 'published'], { error: 'must be draft, pending_moderation or published' })
    .optional(),
  limit: z
    .number({ error: LIMIT_TEXT })
    .int(LIMIT_TEXT)
    .min(1, LIMIT_TEXT)
    .max(LIST_MAX, `at most ${LIST_MAX}`)
    .optional(),
  cursor: z.string().optional(),
});

export const ListPostsOutput = z.object({
  items: z.array(AuthorPostSchema),
  next_cursor: z.string().nullable(),
});
