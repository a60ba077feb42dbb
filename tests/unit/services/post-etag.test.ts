/** Conditional requests: the article ETag and the If-Match / If-None-Match rules (RFC 9110). */
import { describe, expect, it } from 'vitest';
import { ifMatchHolds, ifNoneMatchMatches, parseEntityTags } from '../../../server/entity-tags';
import { assertIfMatch, postEtag } from '../../../server/services/post-etag';

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
  it('assertIfMatch throws 412 precondition_failed', () => {
    expect(() => assertIfMatch('"stale"', post)).toThrow(
      expect.objectContaining({ status: 412, code: 'precondition_failed' }),
    );
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
