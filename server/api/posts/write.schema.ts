import { z } from 'zod';
import { MARKDOWN_MAX, RULE_TEXT, SUBTITLE_MAX, TITLE_MAX } from '../../services/post-rules';
import { TAGS_MAX } from '../../services/tags';
import { uuidString } from '../../uuid';

/**
 * Body fields of POST /posts and PATCH /posts/{id}. The limits and their messages are the
 * domain's (services/post-rules.ts), which enforces them again for every caller, console
 * included; here they shape the 400s of the REST surface and the OpenAPI document.
 * Unknown fields (cover_width, cover_height included: they are computed) are refused.
 */
const stringField = () =>
  z.string({ error: (i) => (i.input === undefined ? RULE_TEXT.required : RULE_TEXT.notString) });

const titleField = stringField().trim().min(1, RULE_TEXT.empty).max(TITLE_MAX, RULE_TEXT.tooLong(TITLE_MAX));
const markdownField = stringField()
  .max(MARKDOWN_MAX, RULE_TEXT.tooLong(MARKDOWN_MAX))
  .refine((s) => s.trim().length > 0, RULE_TEXT.empty);
const subtitleField = z
  .string({ error: RULE_TEXT.notStringOrNull })
  .trim()
  .max(SUBTITLE_MAX, RULE_TEXT.tooLong(SUBTITLE_MAX))
  .transform((s) => (s === '' ? null : s))
  .nullable();
const tagsField = z
  .array(z.string({ error: RULE_TEXT.notString }), { error: RULE_TEXT.notTagList })
  .max(TAGS_MAX, RULE_TEXT.tooManyTags);
const slugField = z.string({ error: RULE_TEXT.notString });
const coverAssetField = uuidString(RULE_TEXT.notUuidOrNull).nullable();
const coverUrlField = z.string({ error: RULE_TEXT.notStringOrNull }).trim().min(1, RULE_TEXT.empty).nullable();

/** Unknown fields are refused by name: "cover_width: unknown field" (they are computed). */
const unknownField = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys' ? `unknown field ${(i.keys ?? []).join(', ')}` : 'must be a JSON object';

/** The fields an article write may send; POST requires title and Markdown, PATCH none (but one). */
const writeFields = {
  title: titleField,
  markdown: markdownField,
  subtitle: subtitleField.optional(),
  tags: tagsField.optional(),
  slug: slugField.optional(),
  cover_asset_id: coverAssetField.optional(),
  cover_url: coverUrlField.optional(),
};

export const CreatePostInput = z.strictObject(writeFields, { error: unknownField });

export const UpdatePostInput = z.strictObject(
  { id: uuidString(), ...writeFields, title: titleField.optional(), markdown: markdownField.optional() },
  { error: unknownField },
);
