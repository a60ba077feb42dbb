import { z } from 'zod';
import { uuidString } from '../../foundation/uuid';

/**
 * The AuthorPost resource as zod schemas: the REST procedures validate their output with them
 * and the OpenAPI document is generated from them, and the domain's AuthorPostJson type is
 * inferred from them (post-view.ts), so the shape is written once. The read statements' column
 * list and both mappings to AuthorPost (from a read row, from the saved entity) are derived from
 * AuthorPostSchema's fields too (post-view.ts).
 */
const TagSchema = z.object({ slug: z.string(), name: z.string() });

/** AuthorPost, fields in the contract's order (docs/api.md "AuthorPost"). */
export const AuthorPostSchema = z
  .object({
    id: uuidString(),
    public_id: z.string(),
    canonical_path: z.string(),
    title: z.string(),
    subtitle: z.string().nullable(),
    slug: z.string(),
    status: z.enum(['draft', 'pending_moderation', 'published']),
    tags: z.array(TagSchema),
    cover_asset_id: uuidString().nullable(),
    cover_url: z.string().nullable(),
    cover_width: z.number().int().nullable(),
    cover_height: z.number().int().nullable(),
    published_at: z.iso.datetime({ offset: true }).nullable(),
    created_at: z.iso.datetime({ offset: true }),
    updated_at: z.iso.datetime({ offset: true }),
    has_unpublished_changes: z.boolean(),
    like_count: z.number().int(),
    comment_count: z.number().int(),
    save_count: z.number().int(),
    popularity: z.number().int(),
    impression_count: z.number().int(),
    open_count: z.number().int(),
    read_count: z.number().int(),
    complete_count: z.number().int(),
  })
  .meta({ id: 'AuthorPost' });

/** Write responses: never `html`; `rehost_failed` and `warnings` only when non-empty. */
export const AuthorPostWriteSchema = AuthorPostSchema.extend({
  rehost_failed: z.array(z.string()).min(1).optional().meta({
    description: 'External image URLs that could not be stored; their `src` stays external. Omitted when empty.',
  }),
  warnings: z
    .array(z.string())
    .min(1)
    .optional()
    .meta({ description: 'Why rehost stopped early (media minute limit or daily quota). Omitted when empty.' }),
}).meta({ id: 'AuthorPostWriteResult' });

/** `GET /posts/{id}`: the only response with `html`. */
export const AuthorPostWithHtmlSchema = AuthorPostSchema.extend({
  html: z
    .string()
    .meta({ description: 'Sanitized HTML of the working version (may differ from what readers see until publish).' }),
}).meta({ id: 'AuthorPostWithHtml' });
