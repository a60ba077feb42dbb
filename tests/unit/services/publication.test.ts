import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../server/foundation/errors';
import {
  approve,
  edited,
  publish,
  reject,
  unpublish,
  type Publication,
} from '../../../server/services/posts/publication';

/** The publication state machine: every transition, every refusal, and invariants over any sequence. */
type Version = { title: string };
const v = (title: string): Version => ({ title });
const draft = (): Publication<Version> => ({
  status: 'draft',
  hasUnpublishedChanges: false,
  publishedVersion: null,
  submittedVersion: null,
  publishedAt: null,
  moderationNote: null,
});
const T1 = new Date('2026-01-01T00:00:00Z');
const T2 = new Date('2026-02-01T00:00:00Z');

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid');
    return (err as DomainError).message;
  }
  throw new Error('not refused');
}

describe('publish', () => {
  it('makes a draft public at once for an unmoderated account', () => {
    const post = draft();
    expect(publish(post, { version: v('a'), empty: false }, { moderated: false, now: T1 })).toBe(true);
    expect(post).toMatchObject({ status: 'published', publishedVersion: v('a'), publishedAt: T1 });
    expect(post.hasUnpublishedChanges).toBe(false);
  });

  it("submits a moderated account's draft and keeps it private", () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: true, now: T1 });
    expect(post).toMatchObject({ status: 'pending_moderation', submittedVersion: v('a'), publishedVersion: null });
    expect(post.publishedAt).toBeNull();
  });

  it('changes nothing when readers already see the working version (published_at stays, no moderation)', () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: false, now: T1 });
    const before = structuredClone(post);
    for (const moderated of [false, true]) {
      expect(publish(post, { version: v('a'), empty: false }, { moderated, now: T2 })).toBe(false);
      expect(post).toEqual(before);
    }
  });

  it('republishes changes, moving published_at', () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: false, now: T1 });
    edited(post);
    expect(post.hasUnpublishedChanges).toBe(true);
    publish(post, { version: v('b'), empty: false }, { moderated: false, now: T2 });
    expect(post).toMatchObject({ publishedVersion: v('b'), publishedAt: T2, hasUnpublishedChanges: false });
  });

  it('refuses while waiting for moderation, and an empty working version', () => {
    const post = draft();
    expect(refusal(() => publish(post, { version: v(''), empty: true }, { moderated: false, now: T1 }))).toMatch(
      /^markdown: /,
    );
    expect(post.status).toBe('draft');
    publish(post, { version: v('a'), empty: false }, { moderated: true, now: T1 });
    expect(refusal(() => publish(post, { version: v('a'), empty: false }, { moderated: true, now: T2 }))).toMatch(
      /^status: .*waiting for moderation/,
    );
  });
});

describe('unpublish', () => {
  it('takes a published or submitted article back to draft; a draft is refused', () => {
    expect(refusal(() => unpublish(draft()))).toBe('status: a draft is not published');
    for (const moderated of [false, true]) {
      const post = draft();
      publish(post, { version: v('a'), empty: false }, { moderated, now: T1 });
      unpublish(post);
      expect(post).toEqual(draft());
    }
  });
});

describe('moderation', () => {
  it('approve publishes the submitted version at the approval time', () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: true, now: T1 });
    approve(post, T2, 'Article x');
    expect(post).toMatchObject({
      status: 'published',
      publishedVersion: v('a'),
      submittedVersion: null,
      publishedAt: T2,
    });
  });

  it('reject returns a never-published article to draft, with the reason', () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: true, now: T1 });
    reject(post, 'too short', 'Article x');
    expect(post).toMatchObject({ status: 'draft', moderationNote: 'too short', hasUnpublishedChanges: false });
  });

  it('reject keeps an earlier approved version public and marks the working one as changed', () => {
    const post = draft();
    publish(post, { version: v('a'), empty: false }, { moderated: true, now: T1 });
    approve(post, T1, 'Article x');
    edited(post);
    publish(post, { version: v('b'), empty: false }, { moderated: true, now: T2 });
    expect(post.publishedVersion).toEqual(v('a'));
    reject(post, null, 'Article x');
    expect(post).toMatchObject({ status: 'published', publishedVersion: v('a'), hasUnpublishedChanges: true });
    expect(post.publishedAt).toEqual(T1);
  });

  it('refuses to decide what is not waiting', () => {
    expect(refusal(() => approve(draft(), T1, 'Article x'))).toBe('Article x is not waiting for moderation');
    expect(refusal(() => reject(draft(), null, 'Article x'))).toBe('Article x is not waiting for moderation');
  });
});

type Step =
  | { kind: 'publish'; moderated: boolean; empty: boolean; title: string }
  | { kind: 'unpublish' | 'edit' | 'approve' | 'reject' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('publish' as const),
    moderated: fc.boolean(),
    empty: fc.boolean(),
    title: fc.string({ maxLength: 3 }),
  }),
  fc.record({ kind: fc.constantFrom('unpublish' as const, 'edit' as const, 'approve' as const, 'reject' as const) }),
);

describe('any sequence of steps', () => {
  it('keeps the states consistent, and a refused step changes nothing', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const post = draft();
        let clock = 0;
        for (const s of steps) {
          const before = structuredClone(post);
          const now = new Date(++clock * 1000);
          try {
            if (s.kind === 'publish')
              publish(post, { version: v(s.title), empty: s.empty }, { moderated: s.moderated, now });
            else if (s.kind === 'unpublish') unpublish(post);
            else if (s.kind === 'edit') edited(post);
            else if (s.kind === 'approve') approve(post, now, 'Article x');
            else reject(post, 'no', 'Article x');
          } catch (err) {
            expect(err).toBeInstanceOf(DomainError);
            expect(post).toEqual(before);
          }
          // What readers see exists exactly when the article is public or was public before a submission.
          if (post.status === 'draft') {
            expect(post.publishedVersion ?? null).toBeNull();
            expect(post.submittedVersion ?? null).toBeNull();
            expect(post.hasUnpublishedChanges).toBe(false);
          }
          if (post.status === 'published') {
            expect(post.publishedVersion).not.toBeNull();
            expect(post.publishedAt).toBeInstanceOf(Date);
            expect(post.submittedVersion ?? null).toBeNull();
          }
          if (post.status === 'pending_moderation') expect(post.submittedVersion).not.toBeNull();
          expect(post.publishedAt == null).toBe(post.publishedVersion == null);
        }
      }),
    );
  });
});
