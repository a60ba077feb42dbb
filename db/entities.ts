import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * Entities, declared without decorators so Next's bundler needs no reflection
 *; every table name is explicit because production builds mangle names.
 * Columns are snake_case through MikroORM's default UnderscoreNamingStrategy.
 * The schema itself lives in db/migrations (committed SQL).
 */

export const AccountEntity = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: (p) => ({
    id: p.uuid().primary(),
    handle: p.text(),
    isAdmin: p.boolean(),
    isModerated: p.boolean(),
    readPerMin: p.integer(),
    writePerMin: p.integer(),
    publishPerMin: p.integer(),
    mediaPerMin: p.integer(),
    dailyMediaBytes: p.bigint('number'),
    createdAt: p.datetime(3),
    deletedAt: p.datetime(3).nullable(),
  }),
});
export type Account = InferEntity<typeof AccountEntity>;

export const ApiTokenEntity = defineEntity({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: (p) => ({
    id: p.uuid().primary(),
    accountId: p.uuid(),
    name: p.text(),
    secretHash: p.blob(),
    prefix: p.text(),
    lastFour: p.text(),
    createdAt: p.datetime(3),
    lastUsedAt: p.datetime(3).nullable(),
    revokedAt: p.datetime(3).nullable(),
  }),
});
export type ApiToken = InferEntity<typeof ApiTokenEntity>;

export const MediaEntity = defineEntity({
  name: 'Media',
  tableName: 'media',
  properties: (p) => ({
    id: p.uuid().primary(),
    accountId: p.uuid(),
    kind: p.text(),
    mimeType: p.text(),
    byteSize: p.bigint('number'),
    width: p.integer(),
    height: p.integer(),
    storageKey: p.text(),
    sha256: p.text(),
    posterMediaId: p.uuid().nullable(),
    sourceUrl: p.text().nullable(),
    /** The file's name on the maintainer's computer, for files added in the console. */
    fileName: p.text().nullable(),
    createdAt: p.datetime(3),
  }),
});
export type Media = InferEntity<typeof MediaEntity>;

const TagEntity = defineEntity({
  name: 'Tag',
  tableName: 'tags',
  properties: (p) => ({
    id: p.uuid().primary(),
    slug: p.text(),
    name: p.text(),
  }),
});

const PostTagEntity = defineEntity({
  name: 'PostTag',
  tableName: 'post_tags',
  properties: (p) => ({
    postId: p.uuid().primary(),
    tagId: p.uuid().primary(),
    position: p.integer(),
  }),
});

/** What readers see: a frozen copy of the working version taken at publish/approval time. */
export interface PostVersion {
  title: string;
  subtitle: string | null;
  slug: string;
  html: string;
  tags: { slug: string; name: string }[];
  cover: { url: string; width: number; height: number } | null;
}

export const PostEntity = defineEntity({
  name: 'Post',
  tableName: 'posts',
  properties: (p) => ({
    id: p.uuid().primary(),
    accountId: p.uuid(),
    publicId: p.text(),
    slug: p.text(),
    title: p.text(),
    subtitle: p.text().nullable(),
    markdown: p.text().lazy(true, false),
    html: p.text().lazy(true, false),
    tags: p.json<{ slug: string; name: string }[]>(),
    coverAssetId: p.uuid().nullable(),
    coverUrl: p.text().nullable(),
    coverWidth: p.integer().nullable(),
    coverHeight: p.integer().nullable(),
    status: p.enum(['draft', 'pending_moderation', 'published'] as const),
    hasUnpublishedChanges: p.boolean(),
    publishedAt: p.datetime(3).nullable(),
    publishedVersion: p.json<PostVersion>().nullable().lazy(true, false),
    submittedVersion: p.json<PostVersion>().nullable().lazy(true, false),
    moderationNote: p.text().nullable(),
    likeCount: p.integer(),
    commentCount: p.integer(),
    saveCount: p.integer(),
    popularity: p.integer(),
    impressionCount: p.integer(),
    openCount: p.integer(),
    readCount: p.integer(),
    completeCount: p.integer(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
    deletedAt: p.datetime(3).nullable(),
  }),
});
export type Post = InferEntity<typeof PostEntity>;
export type PostStatus = Post['status'];

export const allEntities = [AccountEntity, ApiTokenEntity, MediaEntity, TagEntity, PostTagEntity, PostEntity];
