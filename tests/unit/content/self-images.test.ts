import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderArticleSync } from '../../../server/content';
import { pointsAtServiceOutsideMedia } from '../../../server/content/urls';

/**
 * No article body shows an image of this service other than a stored file: a reader beacon (or
 * a page) in one article would count every reader of it for another. Removed at conversion,
 * whatever the spelling, absolute or relative, and reported in `selfImages` as written.
 */
const ORIGIN = 'https://blog.example';
const MEDIA = '/api/media/0f8fad5b-d9cb-469f-a165-70867728950e';
const render = (markdown: string, selfOrigins: string[] = [ORIGIN]) =>
  renderArticleSync({ markdown, title: 'T', selfOrigins });

describe('images that point at this service', () => {
  it('removes beacons (absolute on any host, relative, other spellings) and reports each as written', () => {
    const planted = [
      `${ORIGIN}/api/reader/abcdefghij/complete.gif`,
      'https://elsewhere.example/api/reader/abcdefghij/open.gif',
      '/api/reader/abcdefghij/read.gif',
      '../api/reader/abcdefghij/read.gif',
      `${ORIGIN}/api/%72eader/abcdefghij/open.gif`,
      `${ORIGIN}/API/Reader/abcdefghij/open.gif`,
      `//blog.example/api/reader/abcdefghij/open.gif`,
    ];
    const markdown = planted.map((url, i) => `![p${i}](${url})`).join('\n\n') + `\n\n![kept](${MEDIA})`;
    const out = render(markdown);
    expect(out.html).not.toMatch(/api\/reader|api\/%72eader|API\/Reader/i);
    expect(out.html).toContain(`src="${MEDIA}"`);
    expect(out.externalImages).toEqual([]);
    expect(out.selfImages.sort()).toEqual([...planted].sort());
  });

  it('removes any other address of the public origin (a page), keeps external images and stored files', () => {
    const out = render(
      `![page](${ORIGIN}/some-article-abcdefghij)\n\n![ext](https://cdn.example/a.png)\n\n<img src="${ORIGIN}/api/reader/abcdefghij/open.gif">`,
    );
    expect(out.html).not.toContain(ORIGIN);
    expect(out.externalImages).toEqual(['https://cdn.example/a.png']);
    expect(out.selfImages).toEqual([`${ORIGIN}/some-article-abcdefghij`, `${ORIGIN}/api/reader/abcdefghij/open.gif`]);
  });

  it('without a public origin, still removes beacon paths on any host and nothing else external', () => {
    const out = render(`![a](${ORIGIN}/api/reader/abcdefghij/open.gif)\n\n![b](${ORIGIN}/pic.png)`, []);
    expect(out.externalImages).toEqual([`${ORIGIN}/pic.png`]);
    expect(out.selfImages).toEqual([`${ORIGIN}/api/reader/abcdefghij/open.gif`]);
  });

  it('never lets a beacon address through, however its path is spelled (property)', () => {
    let ran = 0;
    const spelled = fc
      .tuple(
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
      )
      .map(([escape, upper]) =>
        [...'api/reader']
          .map((c, i) => {
            const char = upper[i] && c !== '/' ? c.toUpperCase() : c;
            return escape[i] && c !== '/' ? `%${char.charCodeAt(0).toString(16)}` : char;
          })
          .join(''),
      );
    fc.assert(
      fc.property(spelled, fc.constantFrom(ORIGIN, 'http://other.example', ''), (path, origin) => {
        ran++;
        const url = `${origin}/${path}/abcdefghij/open.gif`;
        const out = render(`Text.\n\n![x](${url})`);
        expect(out.html).not.toContain('<img');
        if (origin !== '') expect(pointsAtServiceOutsideMedia(new URL(url).href, [ORIGIN])).toBe(true);
      }),
    );
    expect(ran).toBeGreaterThan(0);
  });
});
