import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../server/foundation/errors';
import { isValidSlug, slugFromText } from '../../../server/services/posts/slugs';
import { normalizeTagNames, TAGS_MAX } from '../../../server/services/posts/tags';

/** Slugs derived from titles and tag names: always valid, stable, and the same tag whatever its spelling. */
describe('slugFromText', () => {
  it('is a valid slug of at most the given length for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (text, max) => {
        const slug = slugFromText(text, 'post', max);
        expect(isValidSlug(slug)).toBe(true);
        expect(slug.length).toBeLessThanOrEqual(Math.max(max, 'post'.length));
      }),
    );
  });

  it('transliterates other scripts and falls back when nothing is left', () => {
    expect(slugFromText('Привет, мир')).toBe('privet-mir');
    expect(slugFromText('Hello,   World!')).toBe('hello-world');
    expect(slugFromText('🎉🎉')).toBe('post');
    expect(slugFromText('a'.repeat(79) + ' b')).toBe('a'.repeat(79));
  });

  it('is idempotent on its own output', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        const slug = slugFromText(text);
        expect(slugFromText(slug)).toBe(slug);
      }),
    );
  });
});

describe('isValidSlug', () => {
  it('takes lowercase letters and digits in single-hyphen groups, up to 100 characters', () => {
    for (const ok of ['a', 'a-b', 'x1-2y', 'a'.repeat(100)]) expect(isValidSlug(ok)).toBe(true);
    for (const bad of ['', '-a', 'a-', 'a--b', 'A', 'ä', 'a b', 'a_b', 'a'.repeat(101)])
      expect(isValidSlug(bad)).toBe(false);
  });
});

describe('normalizeTagNames', () => {
  it('makes one tag of spellings with the same slug, keeping the first spelling and the order', () => {
    expect(normalizeTagNames(['  Node.js ', 'node js', 'Rust', 'NODE-JS'])).toEqual([
      { slug: 'node-js', name: 'Node.js' },
      { slug: 'rust', name: 'Rust' },
    ]);
    expect(normalizeTagNames(['a   b'])).toEqual([{ slug: 'a-b', name: 'a b' }]);
  });

  it('refuses empty names, names without letters or digits, over-long names and too many tags with a 400', () => {
    const refusal = (names: string[]) => {
      try {
        normalizeTagNames(names);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).kind).toBe('invalid');
        return (err as DomainError).message;
      }
      throw new Error('not refused');
    };
    expect(refusal(['  '])).toBe('tags: a tag name must not be empty');
    expect(refusal(['🎉'])).toMatch(/^tags: "🎉" has no letters or digits/);
    expect(refusal(['x'.repeat(51)])).toMatch(/^tags: a tag name is at most 50 characters/);
    expect(refusal(Array.from({ length: TAGS_MAX + 1 }, (_, i) => `t${i}`))).toBe(`tags: at most ${TAGS_MAX} tags`);
  });

  it('gives distinct valid slugs for any accepted list', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: TAGS_MAX }), (names) => {
        let tags;
        try {
          tags = normalizeTagNames(names);
        } catch (err) {
          // Only a refusal of the domain's own (a DomainError naming the rule) may skip a case.
          expect(err).toBeInstanceOf(DomainError);
          return;
        }
        accepted++;
        const slugs = tags.map((t) => t.slug);
        expect(new Set(slugs).size).toBe(slugs.length);
        for (const s of slugs) expect(isValidSlug(s)).toBe(true);
      }),
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
