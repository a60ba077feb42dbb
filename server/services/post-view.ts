import type { z } from 'zod';
import type { Post, PostVersion } from '../../db/entities';
import { isoTimestamp } from '../../db/statements';
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

/** The working version as readers would get it on publish: what publish snapshots and the console previews. */
export function workingVersion(post: Post): PostVersion {
  return {
    title: post.title,
    subtitle: post.subtitle ?? null,
    slug: post.slug,
    html: post.html,
    tags: post.tags,
    cover:
      post.coverUrl && post.coverWidth && post.coverHeight
        ? { url: post.coverUrl, width: post.coverWidth, height: post.coverHeight }
        : null,
  };
}

export interface ViewExtras {
  html?: string;
  rehostFailed?: string[];
  /** Why each `rehostFailed` URL was not stored (for the console; the REST output drops it). */
  rehostCauses?: Record<string, string>;
  warnings?: string[];
}

type AuthorPostField = keyof z.infer<typeof AuthorPostSchema>;

/** One row of AUTHOR_POST_COLUMNS; timestamps are PostgreSQL's text (see isoTimestamp). */
export type AuthorPostRow = Omit<
  AuthorPostJson,
  'canonical_path' | 'html' | 'rehost_failed' | 'rehostCauses' | 'warnings'
>;

/** `cover_asset_id` → `coverAssetId`: a `posts` column's name as the Post entity's property. */
type EntityName<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<EntityName<Tail>>}`
  : S;

interface MadeField {
  /** False for a field that is no column (it is made from others). */
  column?: false;
  /** From a read row (timestamps as PostgreSQL's text); absent: the column as it is. */
  fromRow?: (row: AuthorPostRow) => unknown;
  /** From the saved entity; absent: the property of the same name, camelCased. */
  fromEntity?: (post: Post) => unknown;
}

/**
 * The AuthorPost fields that are not simply their column. Every other field of AuthorPostSchema
 * (the one list of the fields, in the contract's order) is the `posts` column of its name, and
 * the Post entity's property of that name in camelCase (an absent nullable value is null).
 * `published_at` is shown only while the article is published: the contract says it is null for
 * draft and pending_moderation even when an earlier version is still public.
 */
const MADE = {
  canonical_path: {
    column: false,
    fromRow: (row) => canonicalPath(row.slug, row.public_id),
    fromEntity: (post) => canonicalPath(post.slug, post.publicId),
  },
  // The stored tag objects are copied to exactly the resource's two fields.
  tags: { fromEntity: (post) => post.tags.map((t) => ({ slug: t.slug, name: t.name })) },
  published_at: {
    fromRow: (row) => (row.status === 'published' && row.published_at ? isoTimestamp(row.published_at) : null),
    fromEntity: (post) => (post.status === 'published' && post.publishedAt ? post.publishedAt.toISOString() : null),
  },
  created_at: {
    fromRow: (row) => isoTimestamp(row.created_at),
    fromEntity: (post) => post.createdAt.toISOString(),
  },
  updated_at: {
    fromRow: (row) => isoTimestamp(row.updated_at),
    fromEntity: (post) => post.updatedAt.toISOString(),
  },
} satisfies { [F in AuthorPostField]?: MadeField };
const MADE_BY_FIELD: { [F in AuthorPostField]?: MadeField } = MADE;

const FIELDS = Object.keys(AuthorPostSchema.shape) as AuthorPostField[];

const entityName = <F extends string>(field: F) =>
  field.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) as EntityName<F>;

/** How one field is made: a function of the source, or one of its properties copied. */
type FieldSource<S> = ((source: S) => unknown) | { copy: string; orNull: boolean };

/**
 * The fields' sources compiled into one function that returns an object literal, fields in the
 * schema's order (as json-serializers.ts compiles serializers): a loop over the table instead
 * costs about four times as much per article on the read path. Property names are written with
 * JSON.stringify and functions passed in as arguments, so the source holds no outside text.
 */
function compileView<S>(sources: ReadonlyArray<readonly [string, FieldSource<S>]>): (source: S) => AuthorPostJson {
  const makers: Array<(source: S) => unknown> = [];
  const properties = sources.map(([field, from]) => {
    if (typeof from === 'function') {
      makers.push(from);
      return `${JSON.stringify(field)}: m${makers.length - 1}(s)`;
    }
    const copied = `s[${JSON.stringify(from.copy)}]`;
    return `${JSON.stringify(field)}: ${from.orNull ? `${copied} ?? null` : copied}`;
  });
  const names = makers.map((_, i) => `m${i}`);
  const factory = new Function(...names, `return function view(s) { return { ${properties.join(', ')} }; };`) as (
    ...makers: Array<(source: S) => unknown>
  ) => (source: S) => AuthorPostJson;
  return factory(...makers);
}

/** A read row to AuthorPost: each field made, or its column copied. */
const viewOfRow = compileView<AuthorPostRow>(
  FIELDS.map((field) => [field, MADE_BY_FIELD[field]?.fromRow ?? { copy: field, orNull: false }] as const),
);

/**
 * A saved entity to AuthorPost: each field made, or the entity property copied (an absent
 * nullable one as null). The property's type checks that every copied field has one.
 */
const viewOfEntity = compileView<Post>(
  FIELDS.map((field) => {
    const made = MADE_BY_FIELD[field]?.fromEntity;
    if (made) return [field, made] as const;
    const property: keyof Post = entityName(field as Exclude<AuthorPostField, keyof typeof MADE>);
    return [field, { copy: property, orNull: true }] as const;
  }),
);

/** The `posts` columns an AuthorPost is made of, as the read statements return them. */
export const AUTHOR_POST_COLUMNS = FIELDS.filter((field) => MADE_BY_FIELD[field]?.column !== false).join(', ');

/**
 * A read row straight to JSON, with the same rules as `toAuthorPost` (no entity, no Date):
 * the hot read routes skip the ORM's hydration.
 */
export function authorPostFromRow(row: AuthorPostRow, extras?: ViewExtras): AuthorPostJson {
  return extras ? withExtras(viewOfRow(row), extras) : viewOfRow(row);
}

/** The saved entity as the API answers it. */
export function toAuthorPost(post: Post, extras: ViewExtras = {}): AuthorPostJson {
  return withExtras(viewOfEntity(post), extras);
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
