import { z } from 'zod';
import { LIST_DEFAULT, LIST_MAX } from '../../services/posts/post-reads';
import { AuthorPostSchema } from '../../services/posts/author-post.schema';

const LIMIT_TEXT = `must be an integer from 1 to ${LIST_MAX}`;

/**
 * GET /posts query: status filter, limit 1–LIST_MAX (default LIST_DEFAULT, services/posts/post-reads.ts),
 * opaque cursor. `limit` arrives as text and is a number only in its plain decimal spelling
 * (server/http/rest-procedures.ts); every refusal of it says the one rule.
 */
export const ListPostsInput = z.object({
  status: z
    .enum(['draft', 'pending_moderation', 'published'], { error: 'must be draft, pending_moderation or published' })
    .optional(),
  limit: z
    .number({ error: LIMIT_TEXT })
    .int(LIMIT_TEXT)
    .min(1, LIMIT_TEXT)
    .max(LIST_MAX, LIMIT_TEXT)
    .meta({
      description: `Plain decimal digits, 1 to ${LIST_MAX} (${LIST_DEFAULT} when absent); \`1e1\`, \`0x10\` or \`5.0\` are 400.`,
    })
    .optional(),
  cursor: z.string().optional(),
});

export const ListPostsOutput = z.object({
  items: z.array(AuthorPostSchema),
  next_cursor: z.string().nullable(),
});
