import { z } from 'zod';
import { invalid } from '../errors';
import { isValidSlug } from './slugs';
import { TAGS_MAX } from './tags';
import { localMediaUuid } from '../content/urls';
import { uuidString } from '../uuid';

/**
 * The write rules of an article, in one place for every way in: each field's rule is one zod
 * schema here. The REST bodies of POST /posts and PATCH /posts/{id}
 * (server/api/posts/write.schema.ts) are built from `writeFields` (so the OpenAPI document
 * states the limits), and createPost/updatePost run `checkPostWrite` over the same schemas, so
 * the console and any other caller get exactly the 400s the REST API gives ("title: must not be
 * empty"). The contract leaves these limits "not shown"; they are ours: title ≤ 300, subtitle ≤
 * 500, Markdown ≤ 2,000,000 characters, ≤ 20 tags (tag names are checked in tags.ts).
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
const slugField = z.string({ error: RULE_TEXT.notString });
const coverAssetField = uuidString(RULE_TEXT.notUuidOrNull).nullable();
const coverUrlString = z.string({ error: RULE_TEXT.notStringOrNull }).trim().min(1, RULE_TEXT.empty);

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
  cover_url: coverUrlString.nullable().optional(),
};

/** One write as the domain takes it (`checkPostWrite`): every field optional. */
export type PostWriteInput = Partial<z.output<z.ZodObject<typeof writeFields>>>;

/**
 * What the domain checks beyond the REST body's schema: the slug's form and the cover URL's
 * scheme. They run in `checkPostWrite` only, after the REST schema has let the body through, so
 * a REST 400 names these only once the body's other fields are right.
 */
const domainFields = {
  ...writeFields,
  slug: slugField
    .refine(isValidSlug, {
      error: (i) =>
        `"${String(i.input).slice(0, 120)}" is not a valid slug (lowercase letters, digits and single hyphens, at most 100 characters)`,
    })
    .optional(),
  cover_url: coverUrlString
    .superRefine((url, ctx) => {
      const problem = coverUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .nullable()
    .optional(),
};
const createWrite = z.looseObject(domainFields);
const updateWrite = z.looseObject({
  ...domainFields,
  title: domainFields.title.optional(),
  markdown: domainFields.markdown.optional(),
});

/** How many problems one 400 names, as the REST layer does for schema errors. */
const MAX_NAMED = 3;

/**
 * Checks and normalises one write (create: title and markdown required; update: at least one
 * field). Returns the input as it will be stored: title trimmed, subtitle trimmed with "" as
 * null. Throws a 400 naming each problem's field (its first problem only). Everything here is
 * cheap and runs before any database lookup, conversion or download.
 */
export function checkPostWrite<T extends PostWriteInput>(input: T, mode: 'create' | 'update'): T {
  const raw = input as Record<string, unknown>;
  if (mode === 'update' && Object.keys(input).every((k) => raw[k] === undefined)) {
    throw invalid(`body: ${RULE_TEXT.noFields}`);
  }

  const parsed = (mode === 'create' ? createWrite : updateWrite).safeParse(input);
  const problems: string[] = [];
  const named = new Set<PropertyKey>();
  for (const issue of parsed.error?.issues ?? []) {
    const field = issue.path[0] ?? 'body';
    if (named.has(field)) continue;
    named.add(field);
    problems.push(`${String(field)}: ${issue.message}`);
  }
  // "Not both" whatever the values: `{"cover_asset_id": null, "cover_url": "https://…"}` would
  // otherwise clear the cover and drop the URL without a word.
  if (problems.length === 0 && raw.cover_asset_id !== undefined && raw.cover_url !== undefined) {
    problems.push('cover_asset_id and cover_url: send one of them, not both');
  }

  if (problems.length > 0) throw invalid(problems.slice(0, MAX_NAMED).join('; '));
  return parsed.data as T;
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
