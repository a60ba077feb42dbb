import { z } from 'zod';
import { uuidParam } from '../shared.schema';

/**
 * Body fields of POST /posts and PATCH /posts/{id}. Limits the contract leaves to the service
 * are ours: title ≤ 300, subtitle ≤ 500, Markdown ≤ 2,000,000 characters, tags ≤ 20 names.
 * Unknown fields (cover_width, cover_height included: they are computed) are refused.
 */
export const TITLE_MAX = 300;
export const SUBTITLE_MAX = 500;
export const MARKDOWN_MAX = 2_000_000;

const stringField = () => z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });

export const titleField = stringField().trim().min(1, 'must not be empty').max(TITLE_MAX, `at most ${TITLE_MAX} characters`);
export const markdownField = stringField()
  .max(MARKDOWN_MAX, `at most ${MARKDOWN_MAX} characters`)
  .refine((s) => s.trim().length > 0, 'must not be empty');
export const subtitleField = z
  .string({ error: 'must be a string or null' })
  .trim()
  .max(SUBTITLE_MAX, `at most ${SUBTITLE_MAX} characters`)
  .transform((s) => (s === '' ? null : s))
  .nullable();
export const tagsField = z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of tag names' }).max(20, 'at most 20 tags');
export const slugField = z.string({ error: 'must be a string' });
export const coverAssetField = z.uuid({ error: 'must be a UUID or null' }).nullable();
export const coverUrlField = z.string({ error: 'must be a string or null' }).trim().min(1, 'must not be empty').nullable();

/** Unknown fields are refused by name: "cover_width: unknown field" (they are computed). */
const unknownField = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys' ? `unknown field ${(i.keys ?? []).join(', ')}` : 'must be a JSON object';

export const CreatePostInput = z
  .strictObject(
    {
      title: titleField,
      markdown: markdownField,
      subtitle: subtitleField.optional(),
      tags: tagsField.optional(),
      slug: slugField.optional(),
      cover_asset_id: coverAssetField.optional(),
      cover_url: coverUrlField.optional(),
    },
    { error: unknownField },
  );

export const UpdatePostInput = z
  .strictObject(
    {
      id: uuidParam,
      title: titleField.optional(),
      markdown: markdownField.optional(),
      subtitle: subtitleField.optional(),
      tags: tagsField.optional(),
      slug: slugField.optional(),
      cover_asset_id: coverAssetField.optional(),
      cover_url: coverUrlField.optional(),
    },
    { error: unknownField },
  );
