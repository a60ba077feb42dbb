import { z } from 'zod';
import { invalid } from '../../foundation/errors';
import { SLUG_MAX, SLUG_PATTERN } from './slugs';
import { TAGS_MAX } from './tags';
import { localMediaUuid } from '../../content/urls';
import { uuidString } from '../../foundation/uuid';

/**
 * The write rules of an article, in one place for every way in, checked in one pass: each
 * field's rule and the body's own rules (not both covers, at least one field) are zod schemas
 * here. The REST bodies of POST /posts and PATCH /posts/{id} (server/api/posts/write.schema.ts)
 * are these schemas, so the OpenAPI document states every rule (lengths, the slug's pattern, the
 * cover URL's form) and a body is parsed once, by the procedure's input; the console parses its
 * own writes with `parsePostWrite`, the same schemas, so it gets exactly the REST API's 400s
 * ("title: must not be empty"). createPost and updatePost take only a parsed write
 * (`PostCreate`, `PostUpdate`) and check nothing again. The contract leaves these limits "not
 * shown"; they are ours: title ≤ 300, subtitle ≤ 500, Markdown ≤ 2,000,000 characters, ≤ 20
 * tags (tag names are checked in tags.ts), slugs as slugs.ts says.
 */
export const TITLE_MAX = 300;
export const SUBTITLE_MAX = 500;
export const MARKDOWN_MAX = 2_000_000;

const RULE_TEXT = {
  required: 'is required',
  notString: 'must be a string',
  notStringOrNull: 'must be a string or null',
  empty: 'must not be empty',
  tooLong: (max: number) => `at most ${max} characters`,
  notTagList: 'must be an array of tag names',
  tooManyTags: `at most ${TAGS_MAX} tags`,
  notUuidOrNull: 'must be a UUID or null',
  noFields: 'send at least one field to change',
} as const;

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
const slugText = (input: unknown) =>
  `"${String(input).slice(0, 120)}" is not a valid slug (lowercase letters, digits and single hyphens, at most ${SLUG_MAX} characters)`;
const slugField = z
  .string({ error: RULE_TEXT.notString })
  .max(SLUG_MAX, { error: (i) => slugText(i.input), abort: true })
  .regex(SLUG_PATTERN, { error: (i) => slugText(i.input) });
const coverAssetField = uuidString(RULE_TEXT.notUuidOrNull).nullable();
const coverUrlField = z
  .string({ error: RULE_TEXT.notStringOrNull })
  .trim()
  .min(1, RULE_TEXT.empty)
  .superRefine((url, ctx) => {
    const problem = coverUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'An absolute http(s) URL of an image to store as the cover, or the address of a file already stored here (/api/media/{id}); null removes the cover.',
  })
  .nullable();

/** Unknown fields are refused by name: "cover_width: unknown field" (they are computed). */
export const unknownField = (i: { code: string; keys?: string[] }) =>
  i.code === 'unrecognized_keys' ? `unknown field ${(i.keys ?? []).join(', ')}` : 'must be a JSON object';

/** The fields an article write may send; a create requires title and Markdown. */
const createFields = {
  title: titleField,
  markdown: markdownField,
  subtitle: subtitleField.optional(),
  tags: tagsField.optional(),
  slug: slugField.optional(),
  cover_asset_id: coverAssetField.optional(),
  cover_url: coverUrlField.optional(),
};
/** The same fields for an edit, every one optional. */
export const updateFields = {
  ...createFields,
  title: titleField.optional(),
  markdown: markdownField.optional(),
};

type WriteBody = { cover_asset_id?: unknown; cover_url?: unknown };

/**
 * The body's own rules. "Not both" unless both are null: `{"cover_asset_id": null, "cover_url":
 * "https://…"}` would otherwise clear the cover and drop the URL without a word, while two nulls
 * say one thing, no cover (on an edit: remove it, as one null does). An edit sends at least one
 * field (`keys`: the fields counted, so PATCH's path `id` is not one).
 */
export function bodyRules(keys: readonly string[]) {
  return (body: WriteBody, ctx: z.RefinementCtx) => {
    const bothSent = body.cover_asset_id !== undefined && body.cover_url !== undefined;
    if (bothSent && (body.cover_asset_id !== null || body.cover_url !== null))
      ctx.addIssue({ code: 'custom', message: 'send one of them, not both', path: ['cover_asset_id and cover_url'] });
    if (keys.length > 0 && keys.every((k) => (body as Record<string, unknown>)[k] === undefined))
      ctx.addIssue({ code: 'custom', message: RULE_TEXT.noFields, path: [] });
  };
}

/** POST /posts's body, and every create. */
export const PostCreateBody = z.strictObject(createFields, { error: unknownField }).superRefine(bodyRules([]));
/** PATCH /posts/{id}'s fields, and every edit. */
const PostUpdateBody = z
  .strictObject(updateFields, { error: unknownField })
  .superRefine(bodyRules(Object.keys(updateFields)));

/** A create, parsed: title trimmed, subtitle trimmed with "" as null. */
export type PostCreate = z.output<typeof PostCreateBody>;
/** An edit, parsed: the fields it changes. */
export type PostUpdate = z.output<typeof PostUpdateBody>;
/** Either, as the parts of a write shared by create and edit see it. */
export type PostWrite = PostUpdate;

/** How many problems one 400 names, as the REST layer does for schema errors. */
const MAX_NAMED = 3;

/**
 * A write that did not come through the REST procedures (the console's), parsed by the same
 * schemas. Throws a 400 naming each problem's field (its first problem only). Everything here is
 * cheap and runs before any database lookup, conversion or download.
 */
export function parsePostWrite(input: unknown, mode: 'create'): PostCreate;
export function parsePostWrite(input: unknown, mode: 'update'): PostUpdate;
export function parsePostWrite(input: unknown, mode: 'create' | 'update'): PostUpdate;
export function parsePostWrite(input: unknown, mode: 'create' | 'update'): PostUpdate {
  const parsed = (mode === 'create' ? PostCreateBody : PostUpdateBody).safeParse(input);
  if (parsed.success) return parsed.data;
  const problems: string[] = [];
  const named = new Set<string>();
  for (const issue of parsed.error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    if (named.has(field)) continue;
    named.add(field);
    problems.push(`${field}: ${issue.message}`);
  }
  throw invalid(problems.slice(0, MAX_NAMED).join('; '));
}

function coverUrlProblem(url: string): string | undefined {
  // A stored file's own address is local and never downloaded.
  if (localMediaUuid(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http(s) URL';
  return undefined;
}
