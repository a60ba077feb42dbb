import { randomUUID } from 'node:crypto';
import { statement, type StatementRunner } from '../../../db/statements';
import { admittedStatement } from '../../admission/admitted-statement';
import { ADMITTED_ACCOUNT, sql, type Param } from '../../admission/sql';
import { LIVE_OWN, POST_SELECT, type PostRow, type PostRowWith, type VersionSeen } from './rows';
import type { TagRow } from './tags';

/**
 * The statements of the article writes (POST /posts and PATCH /posts/{id}): as a rule a create
 * is one statement (a slug derived from a title already used takes BEGIN, slug lock, slug read,
 * insert, COMMIT), and an edit is a read and an update (BEGIN, row lock, update, COMMIT when
 * another write came in between). server/services/posts/post-writes.ts decides what to write; this file
 * only says how. Every statement returns the article as the aggregate's row (rows.ts).
 */

/** The row as a write reads it: the answer's columns, and the Markdown it converts. */
export type EditedRow = PostRowWith<'markdown'>;

/** A stored copy of an external image: what the rehost memory remembers of it. */
export interface StoredImage {
  id: string;
  width: number;
  height: number;
}

/** Per article, which external image URL became which stored file (the article's rehost memory). */
export type RehostMemory = Map<string, StoredImage>;

/** The rehost memory of the article `post` (SQL) as one JSON column, read with the row in one snapshot. */
const rehostMemoryColumn = (post: string | Param) => sql`(SELECT coalesce(json_agg(json_build_object(
      'source_url', s.source_url, 'id', m.id, 'width', m.width, 'height', m.height)), '[]')
     FROM post_media_sources s JOIN media m ON m.id = s.media_id WHERE s.post_id = ${post}) AS rehost_memory`;

type MemoryRow = { source_url: string; id: string; width: number; height: number };

const rehostMemoryOf = (rows: MemoryRow[]): RehostMemory =>
  new Map(rows.map((r) => [r.source_url, { id: r.id, width: r.width, height: r.height }]));

const REMEMBER_REHOSTS = statement(
  'post_media_sources_remember',
  `INSERT INTO post_media_sources (post_id, source_url, media_id)
   SELECT $1, * FROM unnest($2::text[], $3::uuid[])
   ON CONFLICT (post_id, source_url) DO NOTHING`,
);

/**
 * Remembers what a write stored, by source URL. A URL already remembered keeps its first copy:
 * remembered rows never change, so a conversion with the memory stays reproducible.
 */
export async function rememberRehosts(
  db: StatementRunner,
  postId: string,
  stored: Record<string, StoredImage>,
): Promise<void> {
  const entries = Object.entries(stored);
  if (entries.length === 0) return;
  await db.runWrite(REMEMBER_REHOSTS, [postId, entries.map(([url]) => url), entries.map(([, image]) => image.id)]);
}

const READ_FOR_EDIT = statement(
  'post_write_read',
  `SELECT ${POST_SELECT}, markdown, ${rehostMemoryColumn('$1').plain} FROM posts WHERE ${LIVE_OWN}`,
);

/** What an edit reads first: the row, and its rehost memory as JSON. */
export type ReadForEditRow = EditedRow & { rehost_memory: MemoryRow[] };

/** The article as an edit reads it, split into the row and its rehost memory; null when absent. */
export function foundForEdit(found: ReadForEditRow | undefined): { row: EditedRow; memory: RehostMemory } | null {
  if (!found) return null;
  const { rehost_memory: memory, ...row } = found;
  return { row, memory: rehostMemoryOf(memory) };
}

/** The author's live article with its rehost memory, read in one statement (one snapshot); null when absent. */
export async function readForEdit(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<{ row: EditedRow; memory: RehostMemory } | null> {
  return foundForEdit((await db.run<ReadForEditRow>(READ_FOR_EDIT, [id, accountId]))[0]);
}

const ADMITTED_READ_FOR_EDIT = admittedStatement<'id', ReadForEditRow>({
  name: 'admitted_post_write_read',
  cls: 'write',
  params: { id: 'uuid' },
  read: (p) => sql`SELECT ${POST_SELECT}, markdown, ${rehostMemoryColumn(p.id)}
     FROM posts WHERE id = ${p.id} AND account_id = ${ADMITTED_ACCOUNT} AND deleted_at IS NULL`,
});

/**
 * PATCH's first statement: `readForEdit` in the statement that admits the author to a unit of
 * the write window; no row for an article that is absent, deleted or another author's.
 */
export const admittedReadForEdit = (id: string) => ADMITTED_READ_FOR_EDIT.read({ id });

const LOCK_FOR_EDIT = statement(
  'post_write_lock',
  `SELECT ${POST_SELECT}, markdown FROM posts WHERE ${LIVE_OWN} FOR UPDATE`,
);

/**
 * The row under a write lock until the transaction ends, as it is now: a plain FOR UPDATE waits
 * for a concurrent writer, then reads what it committed.
 */
export async function lockForEdit(tx: StatementRunner, accountId: string, id: string): Promise<EditedRow | null> {
  const [row] = await tx.run<EditedRow>(LOCK_FOR_EDIT, [id, accountId]);
  return row ?? null;
}

const READ_MEMORY = statement('post_write_memory', `SELECT ${rehostMemoryColumn('$1').plain}`);

/** The rehost memory alone, as committed now (a statement of its own: a snapshot of its own). */
export async function readMemory(tx: StatementRunner, id: string): Promise<RehostMemory> {
  const [row] = await tx.run<{ rehost_memory: MemoryRow[] }>(READ_MEMORY, [id]);
  return rehostMemoryOf(row!.rehost_memory);
}

const SLUG_USED = statement(
  'post_write_slug_used',
  `SELECT 1 FROM posts WHERE account_id = $1 AND slug = $2 AND deleted_at IS NULL AND id IS DISTINCT FROM $3 LIMIT 1`,
);

/** Whether another live article of the author (not `exceptId`) has `slug`. */
export async function slugUsed(db: StatementRunner, accountId: string, slug: string, exceptId?: string) {
  return (await db.run(SLUG_USED, [accountId, slug, exceptId ?? null])).length > 0;
}

const LOCK_DERIVED_SLUG = statement('post_write_slug_lock', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');
const SLUGS_LIKE = statement(
  'post_write_slugs_like',
  `SELECT slug FROM posts WHERE account_id = $1 AND deleted_at IS NULL AND (slug = $2 OR slug LIKE $3)`,
);

/**
 * A slug derived from `base`, free among the author's live articles (`base`, then `base-2`,
 * `base-3`…), taken under a per-author, per-base advisory lock held until the transaction ends:
 * concurrent creates with one title take their suffixes in turn. The read is a statement after
 * the lock's, so it sees what the previous holder committed.
 */
export async function lockedDerivedSlug(tx: StatementRunner, accountId: string, base: string): Promise<string> {
  await tx.run(LOCK_DERIVED_SLUG, [`derived-slug:${accountId}:${base}`]);
  // A slug has only [a-z0-9-] (slugs.ts): nothing in it is a LIKE wildcard.
  const rows = await tx.run<{ slug: string }>(SLUGS_LIKE, [accountId, base, `${base}-%`]);
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export interface NewPost {
  id: string;
  accountId: string;
  publicId: string;
  slug: string;
  title: string;
  subtitle: string | null;
  markdown: string;
  html: string;
  /** Tag names as normalised (tags.ts): found, or created. */
  tags: { slug: string; name: string }[];
  cover: { assetId: string | null; url: string | null; width: number | null; height: number | null } | undefined;
  /** The images this write stored, by source URL: the article's first rehost memory. */
  stored: Record<string, StoredImage>;
  now: Date;
  /** The token the write came through; the revision the database records keeps it (revisions.ts). */
  savedByTokenId?: string | null;
}

/**
 * A whole create in one statement: the tags found or created, the article under `slug` unless
 * a live article of the author has it, its `post_tags` rows and its rehost memory. No row comes
 * back when the slug is taken, or when a wanted tag was being created by another write at that
 * moment (its row committed after this statement began, so this statement cannot see it); the
 * caller then tries again, and no article is half-made. A tag created for an article that then
 * was not inserted stays (tags are shared by name, and the retry uses it).
 */
const INSERT_POST = statement(
  'post_write_insert',
  `WITH wanted AS (
     SELECT * FROM unnest($14::uuid[], $15::text[], $16::text[]) WITH ORDINALITY AS w(id, slug, name, position)),
   created AS (
     INSERT INTO tags (id, slug, name) SELECT id, slug, name FROM wanted
     ON CONFLICT (slug) DO NOTHING RETURNING id, slug, name),
   found AS (
     SELECT w.position, coalesce(c.id, t.id) AS id, coalesce(c.slug, t.slug) AS slug, coalesce(c.name, t.name) AS name
       FROM wanted w LEFT JOIN created c ON c.slug = w.slug LEFT JOIN tags t ON t.slug = w.slug),
   post AS (
     INSERT INTO posts (id, account_id, public_id, slug, title, subtitle, markdown, html, tags,
                        cover_asset_id, cover_url, cover_width, cover_height, status, created_at, updated_at,
                        saved_by_token_id)
     SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text,
            (SELECT coalesce(jsonb_agg(jsonb_build_object('slug', slug, 'name', name) ORDER BY position), '[]')
               FROM found),
            $9::uuid, $10::text, $11::integer, $12::integer, 'draft', $13::timestamptz, $13::timestamptz, $19::uuid
      WHERE NOT EXISTS (SELECT 1 FROM found WHERE id IS NULL)
     ON CONFLICT (account_id, slug) WHERE deleted_at IS NULL DO NOTHING
     RETURNING ${POST_SELECT}),
   tagged AS (
     INSERT INTO post_tags (post_id, tag_id, position) SELECT p.id, f.id, f.position - 1 FROM post p, found f),
   remembered AS (
     INSERT INTO post_media_sources (post_id, source_url, media_id)
     SELECT p.id, m.source_url, m.media_id FROM post p, unnest($17::text[], $18::uuid[]) AS m(source_url, media_id))
   SELECT * FROM post`,
);

/** The new article's row, or null when it was not inserted (see INSERT_POST). */
export async function insertPost(db: StatementRunner, post: NewPost): Promise<PostRow | null> {
  const stored = Object.entries(post.stored);
  const [row] = await db.runWrite<PostRow>(INSERT_POST, [
    post.id,
    post.accountId,
    post.publicId,
    post.slug,
    post.title,
    post.subtitle,
    post.markdown,
    post.html,
    post.cover?.assetId ?? null,
    post.cover?.url ?? null,
    post.cover?.width ?? null,
    post.cover?.height ?? null,
    post.now,
    post.tags.map(() => randomUUID()),
    post.tags.map((t) => t.slug),
    post.tags.map((t) => t.name),
    stored.map(([url]) => url),
    stored.map(([, image]) => image.id),
    post.savedByTokenId ?? null,
  ]);
  return row ?? null;
}

/** What an edit changes; an absent field keeps its column. */
export interface PostChanges {
  title?: string;
  subtitle?: string | null;
  slug?: string;
  markdown?: string;
  html?: string;
  /** The article's tags, in order (its `post_tags` rows become exactly these). */
  tags?: TagRow[];
  cover?: { assetId: string | null; url: string | null; width: number | null; height: number | null };
  /** Whether the working version now differs from the public one (publication.ts `edited`). */
  hasUnpublishedChanges: boolean;
  /** The token the save came through; the revision the database records keeps it (revisions.ts). */
  savedByTokenId?: string | null;
  /**
   * The console editor visit whose autosave this save is; absent or null for every other save
   * (REST, a manual save, a restore), which ends that visit's run of autosaves (AUTOSAVE_RUN_MINUTES).
   */
  autosaveVisit?: string | null;
  /**
   * For a restore (server/services/posts/revisions.ts), the time of the version it saves again: the
   * history labels the save "Restored from" it. Absent for any other save (the label is then
   * cleared by a trigger when the save makes a new version: Migration20261128100000_restored_from).
   */
  restoredFrom?: string | null;
}

/**
 * How long one run of autosaves may fold into one history entry, from its first autosave
 * (Migration20261128200000_autosave_runs). Without a bound an editor left open all afternoon
 * would keep a single entry for hours of work; with 10 minutes a long session still leaves a
 * version to go back to every 10 minutes, at most 6 entries an hour of the 50 an article keeps.
 */
export const AUTOSAVE_RUN_MINUTES = 10;

/**
 * The edit and the article's `post_tags`, in one statement, applied only if the article is still
 * at the version the edit was decided on: the fields of its ETag unchanged (every write of the
 * working version moves `updated_at`; publish, unpublish and moderation move the others). Under
 * the row lock that always holds; without it, a concurrent write makes it miss (no row), and
 * the caller decides again under the lock.
 *
 * `updated_at` becomes strictly later than before, so every change of the working version gets
 * its own ETag. Nullable fields travel with a flag saying whether they are set.
 *
 * Every edit sets the autosave run (`$23`, the editor visit of an autosave, else null): an
 * autosave of the row's own visit within AUTOSAVE_RUN_MINUTES of its run's start continues it
 * (the same `autosave_since`, so the history's trigger folds the version it replaces); any other
 * autosave starts a run; any other save ends it. In a SET the columns on the right are the row's
 * before the update. A restore sets its label too (`$24`: the time of the version it restored), so
 * a restore and its label are one statement; any other save leaves the column to the trigger that
 * clears it when the save makes a new version (Migration20261128100000_restored_from).
 */
const UPDATE_POST = statement(
  'post_write_update',
  `WITH updated AS (
     UPDATE posts SET
       title = coalesce($3, title),
       subtitle = CASE WHEN $4 THEN $5 ELSE subtitle END,
       slug = coalesce($6, slug),
       markdown = coalesce($7, markdown),
       html = coalesce($8, html),
       tags = coalesce($9::jsonb, tags),
       cover_asset_id = CASE WHEN $10 THEN $11::uuid ELSE cover_asset_id END,
       cover_url = CASE WHEN $10 THEN $12 ELSE cover_url END,
       cover_width = CASE WHEN $10 THEN $13::integer ELSE cover_width END,
       cover_height = CASE WHEN $10 THEN $14::integer ELSE cover_height END,
       has_unpublished_changes = $16,
       saved_by_token_id = $22::uuid,
       restored_from = coalesce($24::timestamptz, restored_from),
       autosave_visit = $23::uuid,
       autosave_since = CASE
         WHEN $23::uuid IS NULL THEN NULL
         WHEN autosave_visit = $23::uuid
              AND autosave_since > $15::timestamptz - interval '${AUTOSAVE_RUN_MINUTES} minutes' THEN autosave_since
         ELSE $15::timestamptz END,
       updated_at = greatest($15::timestamptz, updated_at + interval '1 millisecond')
     WHERE ${LIVE_OWN}
       AND updated_at = $17::timestamptz AND status = $18 AND has_unpublished_changes = $19
       AND published_at IS NOT DISTINCT FROM $20::timestamptz
     RETURNING ${POST_SELECT}),
   placed AS (
     INSERT INTO post_tags (post_id, tag_id, position)
     SELECT u.id, t.tag_id, t.position - 1
       FROM updated u, unnest($21::uuid[]) WITH ORDINALITY AS t(tag_id, position)
      WHERE $9::jsonb IS NOT NULL
     ON CONFLICT (post_id, tag_id) DO UPDATE SET position = EXCLUDED.position),
   unplaced AS (
     DELETE FROM post_tags
      WHERE $9::jsonb IS NOT NULL AND post_id IN (SELECT id FROM updated) AND tag_id <> ALL($21::uuid[]))
   SELECT * FROM updated`,
);

/** The edited row, or null when the article is no longer at `seen` (or is gone). */
export async function updatePostRow(
  db: StatementRunner,
  accountId: string,
  id: string,
  changes: PostChanges,
  seen: VersionSeen,
): Promise<PostRow | null> {
  const { cover, tags } = changes;
  const [row] = await db.runWrite<PostRow>(UPDATE_POST, [
    id,
    accountId,
    changes.title ?? null,
    changes.subtitle !== undefined,
    changes.subtitle ?? null,
    changes.slug ?? null,
    changes.markdown ?? null,
    changes.html ?? null,
    tags ? JSON.stringify(tags.map((t) => ({ slug: t.slug, name: t.name }))) : null,
    cover !== undefined,
    cover?.assetId ?? null,
    cover?.url ?? null,
    cover?.width ?? null,
    cover?.height ?? null,
    new Date(),
    changes.hasUnpublishedChanges,
    seen.updated_at,
    seen.status,
    seen.has_unpublished_changes,
    seen.published_at,
    (tags ?? []).map((t) => t.id),
    changes.savedByTokenId ?? null,
    changes.autosaveVisit ?? null,
    changes.restoredFrom ?? null,
  ]);
  return row ?? null;
}
