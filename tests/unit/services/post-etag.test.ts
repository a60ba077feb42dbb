/** Conditional requests: the article ETag and the If-Match / If-None-Match rules (RFC 9110). */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ifMatchHolds, ifNoneMatchMatches, parseEntityTags, strongEtag } from '../../../server/foundation/entity-tags';
import { assertIfMatch, postEtag } from '../../../server/services/posts/post-etag';
import type { PostRow } from '../../../server/data/posts/rows';
import { authorPostFromRow } from '../../../server/services/posts/post-view';
import type { PostStatus } from '../../../server/model/post';

const post = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  status: 'draft',
  has_unpublished_changes: false,
  updated_at: '2026-11-23T10:00:00.000Z',
  published_at: null,
};

describe('postEtag', () => {
  it('is a strong, quoted tag that is stable for the same version', () => {
    const tag = postEtag(post);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(postEtag({ ...post })).toBe(tag);
    expect(postEtag({ ...post, updated_at: new Date(post.updated_at) })).toBe(tag);
  });
  it('is the same for a timestamp given as a Date, as its ISO text, or as other text for that instant', () => {
    const instant = fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('2999-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, fc.option(instant, { nil: null }), (updated, published) => {
        const tag = postEtag({ ...post, updated_at: updated, published_at: published });
        expect(
          postEtag({ ...post, updated_at: updated.toISOString(), published_at: published?.toISOString() ?? null }),
        ).toBe(tag);
        // PostgreSQL's own text of a timestamptz, as a row might carry it.
        const pgText = updated.toISOString().replace('T', ' ').replace('Z', '+00');
        expect(postEtag({ ...post, updated_at: pgText, published_at: published })).toBe(tag);
      }),
    );
  });
  it('changes with the working version and with the publication state, not with anything else', () => {
    const tag = postEtag(post);
    expect(postEtag({ ...post, updated_at: '2026-11-23T10:00:00.001Z' })).not.toBe(tag);
    expect(postEtag({ ...post, status: 'published', published_at: '2026-11-23T10:00:01.000Z' })).not.toBe(tag);
    expect(postEtag({ ...post, status: 'pending_moderation' })).not.toBe(tag);
    expect(postEtag({ ...post, has_unpublished_changes: true })).not.toBe(tag);
    expect(postEtag({ ...post, id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })).not.toBe(tag);
    expect(postEtag({ ...post, like_count: 10 } as typeof post)).toBe(tag);
  });
});

describe('If-Match (strong comparison)', () => {
  const tag = postEtag(post);
  it('holds without the header, for *, and for the current tag in a list', () => {
    expect(ifMatchHolds(null, tag)).toBe(true);
    expect(ifMatchHolds(undefined, tag)).toBe(true);
    expect(ifMatchHolds('*', tag)).toBe(true);
    expect(ifMatchHolds(tag, tag)).toBe(true);
    expect(ifMatchHolds(`"other", ${tag}`, tag)).toBe(true);
  });
  it('fails for a stale tag, a weak tag, an unquoted value or an empty header', () => {
    expect(ifMatchHolds('"stale"', tag)).toBe(false);
    expect(ifMatchHolds(`W/${tag}`, tag)).toBe(false);
    expect(ifMatchHolds(tag.slice(1, -1), tag)).toBe(false);
    expect(ifMatchHolds('', tag)).toBe(false);
  });
  it('assertIfMatch throws a stale error (412 precondition_failed over HTTP)', () => {
    expect(() => assertIfMatch('"stale"', post)).toThrow(expect.objectContaining({ kind: 'stale' }));
    expect(() => assertIfMatch(tag, post)).not.toThrow();
  });
});

describe('If-None-Match (weak comparison)', () => {
  const tag = postEtag(post);
  it('matches the current tag, weak or not, and *', () => {
    expect(ifNoneMatchMatches(tag, tag)).toBe(true);
    expect(ifNoneMatchMatches(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatchMatches(`"a", "b", ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchMatches('*', tag)).toBe(true);
  });
  it('does not match without the header or with another tag', () => {
    expect(ifNoneMatchMatches(null, tag)).toBe(false);
    expect(ifNoneMatchMatches('"other"', tag)).toBe(false);
  });
  it('parses lists of tags', () => {
    expect(parseEntityTags('W/"a", "b"')).toEqual({
      any: false,
      tags: [
        { weak: true, opaque: '"a"' },
        { weak: false, opaque: '"b"' },
      ],
    });
  });
});

/**
 * Reads and writes both answer with the tag of the aggregate's row (PostgreSQL's timestamp
 * text, mapped by authorPostFromRow). An integration that PATCHes and then sends the response's
 * ETag as If-None-Match, or GETs and then sends If-Match, relies on it being the tag of the
 * stored state itself: the same as for that state's instants given as Dates.
 */
describe('postEtag of a row equals postEtag of the state it stores', () => {
  /** PostgreSQL's text for a timestamptz(3) in a UTC session: no trailing zeros in the fraction. */
  const pgText = (d: Date) => {
    const iso = d.toISOString();
    const fraction = iso.slice(20, 23).replace(/0+$/, '');
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
  };

  const states: { status: PostStatus; hasUnpublishedChanges: boolean; publishedAt: Date | null }[] = [
    { status: 'draft', hasUnpublishedChanges: false, publishedAt: null },
    // Unpublished or pending: an earlier publication time is kept in the row but not shown.
    { status: 'draft', hasUnpublishedChanges: true, publishedAt: new Date('2026-11-20T08:00:00.500Z') },
    { status: 'pending_moderation', hasUnpublishedChanges: true, publishedAt: new Date('2026-11-20T08:00:00Z') },
    { status: 'published', hasUnpublishedChanges: false, publishedAt: new Date('2026-11-21T09:30:15.007Z') },
    { status: 'published', hasUnpublishedChanges: true, publishedAt: new Date('2026-11-21T09:30:15.120Z') },
  ];
  const updatedAts = [
    '2026-11-23T10:00:00.000Z',
    '2026-11-23T10:00:00.100Z',
    '2026-11-23T10:00:00.120Z',
    '2026-11-23T23:59:59.999Z',
  ];

  for (const state of states) {
    for (const updated of updatedAts) {
      it(`${state.status}${state.hasUnpublishedChanges ? ' with changes' : ''}, updated ${updated}`, () => {
        const updatedAt = new Date(updated);
        const row: PostRow = {
          id: '0f8fad5b-d9cb-469f-a165-70867728950e',
          public_id: 'abc123def456',
          slug: 'a-title',
          title: 'A title',
          subtitle: null,
          tags: [{ slug: 'x', name: 'X' }],
          cover_asset_id: null,
          cover_url: null,
          cover_width: null,
          cover_height: null,
          status: state.status,
          has_unpublished_changes: state.hasUnpublishedChanges,
          published_at: state.publishedAt ? pgText(state.publishedAt) : null,
          created_at: pgText(new Date('2026-11-19T07:00:00.250Z')),
          updated_at: pgText(updatedAt),
          like_count: 3,
          comment_count: 0,
          save_count: 1,
          popularity: 4,
          impression_count: 10,
          open_count: 5,
          read_count: 2,
          complete_count: 1,
        };
        const view = authorPostFromRow(row);
        expect(view.updated_at).toBe(updated);
        expect(postEtag(view)).toBe(
          postEtag({
            id: row.id,
            status: state.status,
            has_unpublished_changes: state.hasUnpublishedChanges,
            updated_at: updatedAt,
            published_at: state.status === 'published' ? state.publishedAt : null,
          }),
        );
      });
    }
  }

  it('a read row in capitals names the same article as the written one', () => {
    expect(postEtag({ ...post, id: post.id.toUpperCase() })).toBe(postEtag(post));
  });
});

describe('strongEtag', () => {
  it('is the SHA-256 of its parts as a hash updated part by part gives it (tags issued before stay valid)', () => {
    const part = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.uint8Array().map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const hash = createHash('sha256');
        for (const p of parts) hash.update(p);
        expect(strongEtag(...parts)).toBe(`"${hash.digest('base64url').slice(0, 27)}"`);
      }),
    );
    // A lone high surrogate ending one part and a lone low one starting the next stay two parts.
    const split = createHash('sha256').update('a\ud800').update('\udc00b').digest('base64url').slice(0, 27);
    expect(strongEtag('a\ud800', '\udc00b')).toBe(`"${split}"`);
  });
});
