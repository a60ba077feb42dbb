/**
 * A URL scheme in any case is the same scheme (server/content/plugins/scheme-case.ts): an image
 * or link written `HTTP://`, `Https://`… converts exactly as its lower-case spelling, the
 * author's spelling kept for reports; a refused scheme stays refused in every case.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderArticleSync } from '../../../server/content';

const render = (markdown: string) => renderArticleSync({ markdown: `Text.\n\n${markdown}\n\nAfter.`, title: 'T' });

/** Every casing of `word`, chosen letter by letter. */
const casing = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

describe('scheme case', () => {
  it('converts an image, an HTML image and a link with a scheme in any case as with the lower-case one', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), casing('https'), (base, cased) => {
        runs++;
        const scheme = cased.slice(0, base.length);
        const written = `${scheme}://example.com/pic.png`;
        const lower = `${base}://example.com/pic.png`;
        for (const make of [
          (url: string) => `![pic](${url})`,
          (url: string) => `<img src="${url}" alt="pic">`,
          (url: string) => `[a link](${url})`,
        ]) {
          const out = render(make(written));
          const expected = render(make(lower));
          expect(out.html).toBe(expected.html);
          expect(out.externalImages).toEqual(expected.externalImages);
          if (out.externalImages.length) expect(out.writtenAs[lower]).toEqual([written]);
        }
      }),
      { numRuns: 40 },
    );
    expect(runs).toBe(40);
  });

  it('still refuses javascript: and data: in every case', () => {
    fc.assert(
      fc.property(casing('javascript'), casing('data'), (js, data) => {
        const out = render(
          `[a](${js}:alert(1))\n\n<a href="${js}:alert(1)">b</a>\n\n<img src="${data}:image/png;base64,AAAA" alt="c">`,
        );
        expect(out.html.toLowerCase()).not.toContain('javascript:');
        expect(out.html.toLowerCase()).not.toContain('data:');
      }),
      { numRuns: 40 },
    );
  });
});
