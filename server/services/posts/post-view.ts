import type { z } from 'zod';
import { isoTimestamp } from '../../../db/statements';
import type { PostRow } from '../../data/posts/rows';
import { AuthorPostSchema, type AuthorPostWriteSchema } from './author-post.schema';

/**
 * AuthorPost as the API answers it, fields in the contract's order: inferred from the zod
 * schema the REST output is validated with, plus `html` (GET /posts/{id} and the console).
 */
export type AuthorPostJson = z.infer<typeof AuthorPostWriteSchema> & {
  html?: string;
  /**
   * Why each `rehost_failed` URL was not stored, keyed as written. Domain-only: the REST output
   * schema strips it (the contract's response names the URLs only); the console shows it.
   */
  rehostCauses?: Record<string, string>;
};

export function canonicalPath(slug: string, publicId: string): string {
  return `/${slug}-${publicId}`;
}

export interface ViewExtras {
  html?: string;
  rehostFailed?: string[];
  /** Why each `rehostFailed` URL was not stored (for the console; the REST output drops it). */
  rehostCauses?: Record<string, string>;
  warnings?: string[];
}

type AuthorPostField = keyof z.infer<typeof AuthorPostSchema>;

/**
 * The AuthorPost fields that are not simply their column. Every other field of AuthorPostSchema
 * (the one list of the fields, in the contract's order) is the `posts` column of its name.
 * `published_at` is shown only while the article is published: the contract says it is null for
 * draft and pending_moderation even when an earlier version is still public.
 */
const MADE: { [F in AuthorPostField]?: (row: PostRow) => unknown } = {
  canonical_path: (row) => canonicalPath(row.slug, row.public_id),
  published_at: (row) => (row.status === 'published' && row.published_at ? isoTimestamp(row.published_at) : null),
  created_at: (row) => isoTimestamp(row.created_at),
  updated_at: (row) => isoTimestamp(row.updated_at),
};

const FIELDS = Object.keys(AuthorPostSchema.shape) as AuthorPostField[];

/**
 * The row to AuthorPost compiled into one function that returns an object literal, fields in the
 * schema's order (as json-serializers.ts compiles serializers): a loop over the fields instead
 * costs about four times as much per article on the read path. Property names are written with
 * JSON.stringify and the makers passed in as arguments, so the source holds no outside text.
 */
function compileView(): (row: PostRow) => AuthorPostJson {
  const makers: Array<(row: PostRow) => unknown> = [];
  const properties = FIELDS.map((field) => {
    const made = MADE[field];
    if (made) {
      makers.push(made);
      return `${JSON.stringify(field)}: m${makers.length - 1}(s)`;
    }
    return `${JSON.stringify(field)}: s[${JSON.stringify(field)}]`;
  });
  const names = makers.map((_, i) => `m${i}`);
  const factory = new Function(...names, `return function view(s) { return { ${properties.join(', ')} }; };`) as (
    ...makers: Array<(row: PostRow) => unknown>
  ) => (row: PostRow) => AuthorPostJson;
  return factory(...makers);
}

const viewOfRow = compileView();

/** The one mapper of the posts aggregate: a row to AuthorPost, with the extras of a write or a read. */
export function authorPostFromRow(row: PostRow, extras?: ViewExtras): AuthorPostJson {
  return extras ? withExtras(viewOfRow(row), extras) : viewOfRow(row);
}

/** `rehost_failed` and `warnings` are omitted when empty, never `[]`. */
function withExtras(out: AuthorPostJson, extras: ViewExtras): AuthorPostJson {
  if (extras.html !== undefined) out.html = extras.html;
  if (extras.rehostFailed && extras.rehostFailed.length > 0) {
    out.rehost_failed = extras.rehostFailed;
    if (extras.rehostCauses) out.rehostCauses = extras.rehostCauses;
  }
  if (extras.warnings && extras.warnings.length > 0) out.warnings = extras.warnings;
  return out;
}
