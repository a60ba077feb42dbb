import { invalid } from '../errors';
import { isValidSlug } from './slugs';
import { TAGS_MAX } from './tags';
import { localMediaUuid } from '../content/urls';
import { isUuid } from '../uuid';
import type { PostWriteInput } from './post-write.schema';

/**
 * The write rules of an article, in one place for every way in: the REST schemas build their
 * zod fields from these limits and messages (so the OpenAPI document states them), and
 * createPost/updatePost apply `checkPostWrite` themselves, so the console and any other caller
 * get exactly the 400s the REST API gives ("title: must not be empty"). The contract leaves these
 * limits "not shown"; they are ours: title ≤ 300, subtitle ≤ 500, Markdown ≤ 2,000,000
 * characters, ≤ 20 tags (tag names are checked in tags.ts).
 */
export const TITLE_MAX = 300;
export const SUBTITLE_MAX = 500;
export const MARKDOWN_MAX = 2_000_000;

export const RULE_TEXT = {
  required: 'is required',
  notString: 'must be a string',
  notStringOrNull: 'must be a string or null',
  empty: 'must not be empty',
  tooLong: (max: number) => `at most ${max} characters`,
  notTagList: 'must be an array of tag names',
  tooManyTags: `at most ${TAGS_MAX} tags`,
  notUuidOrNull: 'must be a UUID or null',
  noFields: 'body: send at least one field to change',
} as const;

function slugProblem(slug: string): string {
  return `slug: "${slug.slice(0, 120)}" is not a valid slug (lowercase letters, digits and single hyphens, at most 100 characters)`;
}

/** How many problems one 400 names, as the REST layer does for schema errors. */
const MAX_NAMED = 3;

/**
 * Checks and normalises one write (create: title and markdown required; update: at least one
 * field). Returns the input as it will be stored: title trimmed, subtitle trimmed with "" as
 * null. Throws a 400 naming each problem's field. Everything here is cheap and runs before any
 * database lookup, conversion or download.
 */
export function checkPostWrite<T extends PostWriteInput>(input: T, mode: 'create' | 'update'): T {
  const problems: string[] = [];
  const out: T = { ...input };
  const raw = input as Record<string, unknown>;

  if (mode === 'update' && Object.keys(input).every((k) => raw[k] === undefined)) throw invalid(RULE_TEXT.noFields);

  if (raw.title === undefined) {
    if (mode === 'create') problems.push(`title: ${RULE_TEXT.required}`);
  } else if (typeof raw.title !== 'string') problems.push(`title: ${RULE_TEXT.notString}`);
  else {
    const title = raw.title.trim();
    if (!title) problems.push(`title: ${RULE_TEXT.empty}`);
    else if (title.length > TITLE_MAX) problems.push(`title: ${RULE_TEXT.tooLong(TITLE_MAX)}`);
    out.title = title;
  }

  if (raw.markdown === undefined) {
    if (mode === 'create') problems.push(`markdown: ${RULE_TEXT.required}`);
  } else if (typeof raw.markdown !== 'string') problems.push(`markdown: ${RULE_TEXT.notString}`);
  else if (raw.markdown.length > MARKDOWN_MAX) problems.push(`markdown: ${RULE_TEXT.tooLong(MARKDOWN_MAX)}`);
  else if (!raw.markdown.trim()) problems.push(`markdown: ${RULE_TEXT.empty}`);

  if (raw.subtitle !== undefined && raw.subtitle !== null) {
    if (typeof raw.subtitle !== 'string') problems.push(`subtitle: ${RULE_TEXT.notStringOrNull}`);
    else {
      const subtitle = raw.subtitle.trim();
      if (subtitle.length > SUBTITLE_MAX) problems.push(`subtitle: ${RULE_TEXT.tooLong(SUBTITLE_MAX)}`);
      out.subtitle = subtitle === '' ? null : subtitle;
    }
  }

  if (raw.tags !== undefined) {
    if (!Array.isArray(raw.tags)) problems.push(`tags: ${RULE_TEXT.notTagList}`);
    else if (raw.tags.some((t) => typeof t !== 'string')) problems.push(`tags: ${RULE_TEXT.notString}`);
    else if (raw.tags.length > TAGS_MAX) problems.push(`tags: ${RULE_TEXT.tooManyTags}`);
  }

  if (raw.slug !== undefined) {
    if (typeof raw.slug !== 'string') problems.push(`slug: ${RULE_TEXT.notString}`);
    else if (!isValidSlug(raw.slug)) problems.push(slugProblem(raw.slug));
  }

  if (raw.cover_asset_id !== undefined && raw.cover_asset_id !== null && !isUuid(raw.cover_asset_id)) {
    problems.push(`cover_asset_id: ${RULE_TEXT.notUuidOrNull}`);
  }
  if (raw.cover_url !== undefined && raw.cover_url !== null) {
    if (typeof raw.cover_url !== 'string') problems.push(`cover_url: ${RULE_TEXT.notStringOrNull}`);
    else {
      const problem = coverUrlProblem(raw.cover_url.trim());
      if (problem) problems.push(problem);
      else out.cover_url = raw.cover_url.trim();
    }
  }
  // "Not both" whatever the values: `{"cover_asset_id": null, "cover_url": "https://…"}` would
  // otherwise clear the cover and drop the URL without a word.
  if (problems.length === 0 && raw.cover_asset_id !== undefined && raw.cover_url !== undefined) {
    problems.push('cover_asset_id and cover_url: send one of them, not both');
  }

  if (problems.length > 0) throw invalid(problems.slice(0, MAX_NAMED).join('; '));
  return out;
}

function coverUrlProblem(url: string): string | undefined {
  if (url === '') return `cover_url: ${RULE_TEXT.empty}`;
  // A stored file's own address is local and never downloaded.
  if (localMediaUuid(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'cover_url: must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'cover_url: must be an http(s) URL';
  return undefined;
}
