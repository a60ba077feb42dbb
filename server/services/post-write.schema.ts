import { z } from 'zod';
import { uuidString } from '../uuid';
import { MARKDOWN_MAX, RULE_TEXT, SUBTITLE_MAX, TITLE_MAX } from './post-rules';
import { TAGS_MAX } from './tags';

/**
 * The fields an article write may send, as zod: the REST bodies of POST /posts and
 * PATCH /posts/{id} (server/api/posts/write.schema.ts) are built from them, and the domain's
 * `PostWriteInput` is inferred from them. The limits and their messages are the domain's
 * (post-rules.ts), which enforces them again for every caller, console included.
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
export const unknownField = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys' ? `unknown field ${(i.keys ?? []).join(', ')}` : 'must be a JSON object';

/** The fields an article write may send; POST requires title and Markdown, PATCH none (but one). */
export const writeFields = {
  title: titleField,
  markdown: markdownField,
  subtitle: subtitleField.optional(),
  tags: tagsField.optional(),
  slug: slugField.optional(),
  cover_asset_id: coverAssetField.optional(),
  cover_url: coverUrlField.optional(),
};

/** One write as the domain takes it (post-rules.ts `checkPostWrite`): every field optional. */
export type PostWriteInput = Partial<z.output<z.ZodObject<typeof writeFields>>>;
