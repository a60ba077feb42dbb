/**
 * AuthorPost is made one way: every statement of the posts aggregate returns the one row shape
 * (server/data/posts/rows.ts) and post-view.ts maps it. These hold the mapper to the contract:
 * every field of AuthorPostSchema in its order, valid against it, and the contract's rules
 * (canonical path, published_at only while published, ISO 8601 times with milliseconds).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POST_COLUMNS, type PostRow } from '../../../server/data/posts/rows';
import { AuthorPostSchema } from '../../../server/services/posts/author-post.schema';
import { authorPostFromRow } from '../../../server/services/posts/post-view';
/** PostgreSQL's text for a timestamptz(3) in a UTC session: no trailing zeros in the fraction. */
const pgText = (d: Date) => {
  const iso = d.toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
};

const date = fc.date({
  min: new Date('2020-01-01T00:00:00Z'),
  max: new Date('2030-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});
const count = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const stored = fc.record({
  id: fc.uuid(),
  publicId: fc.stringMatching(/^[a-z0-9]{12}$/),
  slug: fc.stringMatching(/^[a-z0-9-]{1,30}$/),
  title: fc.string(),
  subtitle: fc.option(fc.string()),
  tags: fc.array(fc.record({ slug: fc.stringMatching(/^[a-z0-9-]{1,10}$/), name: fc.string() }), { maxLength: 3 }),
  coverAssetId: fc.option(fc.uuid()),
  coverUrl: fc.option(fc.webUrl()),
  coverWidth: fc.option(count),
  coverHeight: fc.option(count),
  status: fc.constantFrom('draft' as const, 'pending_moderation' as const, 'published' as const),
  hasUnpublishedChanges: fc.boolean(),
  publishedAt: fc.option(date),
  likeCount: count,
  commentCount: count,
  saveCount: count,
  popularity: count,
  impressionCount: count,
  openCount: count,
  readCount: count,
  completeCount: count,
  createdAt: date,
  updatedAt: date,
});
type Stored = typeof stored extends fc.Arbitrary<infer T> ? T : never;

/** The same state as the read statement returns it (snake_case columns, timestamps as text). */
function rowOf(s: Stored): PostRow {
  return {
    id: s.id,
    public_id: s.publicId,
    slug: s.slug,
    title: s.title,
    subtitle: s.subtitle,
    tags: s.tags,
    cover_asset_id: s.coverAssetId,
    cover_url: s.coverUrl,
    cover_width: s.coverWidth,
    cover_height: s.coverHeight,
    status: s.status,
    has_unpublished_changes: s.hasUnpublishedChanges,
    published_at: s.publishedAt ? pgText(s.publishedAt) : null,
    created_at: pgText(s.createdAt),
    updated_at: pgText(s.updatedAt),
    like_count: s.likeCount,
    comment_count: s.commentCount,
    save_count: s.saveCount,
    popularity: s.popularity,
    impression_count: s.impressionCount,
    open_count: s.openCount,
    read_count: s.readCount,
    complete_count: s.completeCount,
  };
}

const schemaFields = Object.keys(AuthorPostSchema.shape);

describe("AuthorPost from the aggregate's row", () => {
  it('is every field of the schema, in its order, and valid against AuthorPostSchema', () => {
    let runs = 0;
    fc.assert(
      fc.property(stored, (s) => {
        runs++;
        const view = authorPostFromRow(rowOf(s));
        expect(Object.keys(view)).toEqual(schemaFields);
        expect(AuthorPostSchema.strict().safeParse(view).error?.issues ?? []).toEqual([]);
        expect(view.created_at).toBe(s.createdAt.toISOString());
        expect(view.updated_at).toBe(s.updatedAt.toISOString());
      }),
    );
    expect(runs).toBeGreaterThan(0);
  });

  it('reads the contract rules: canonical path, published_at only while published, ISO times', () => {
    const s: Stored = fc.sample(stored, { numRuns: 1, seed: 7 })[0]!;
    const publishedAt = new Date('2026-11-20T08:00:00.500Z');
    const cases = [
      [{ ...s, status: 'draft' as const, publishedAt }, null],
      [{ ...s, status: 'pending_moderation' as const, publishedAt }, null],
      [{ ...s, status: 'published' as const, publishedAt }, '2026-11-20T08:00:00.500Z'],
    ] as const;
    for (const [state, shown] of cases) {
      const view = authorPostFromRow(rowOf(state));
      expect(view.canonical_path).toBe(`/${state.slug}-${state.publicId}`);
      expect(view.published_at).toBe(shown);
    }
  });

  it('the statements select every field of the schema but the canonical path, which is made', () => {
    expect([...POST_COLUMNS]).toEqual(schemaFields.filter((field) => field !== 'canonical_path'));
  });
});
