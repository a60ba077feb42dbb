/**
 * Rehosting without a second conversion (rewrite.ts): for any document and any map,
 * rewriteImageSourcesSync(render(md).html, map) === render(md, { rehosted: map }).html.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ContentRejectedError,
  type ContentPool,
  renderArticleSync,
  rewriteImageSourcesSync,
  storedMediaReferences,
} from '../../../server/content';
import { testContentPool } from '../../support/content-pool';
import { articles } from './corpus';
import { articleMarkdown } from './grammar';

function renderOrUndefined(markdown: string, rehosted?: Record<string, string>) {
  try {
    return renderArticleSync({ markdown, title: 'Title', rehosted });
  } catch (error) {
    if (error instanceof ContentRejectedError) return undefined;
    throw error;
  }
}

const host = fc.constantFrom('img.example.com', 'cdn.example.org', 'Example.NET', 'xn--bcher-kva.example');
const segment = fc.stringMatching(/^[a-zA-Z0-9._~%-]{1,12}$/);
const query = fc.option(fc.constantFrom('?x=1&y=2', '?q="a b"', '?a=<b>', '#frag', '?*_*'), { nil: '' });
/** One external image address in the spellings an author may use (scheme case, protocol-relative). */
const externalUrl = fc
  .tuple(
    fc.constantFrom('https://', 'http://', '//', 'HTTPS://'),
    host,
    fc.array(segment, { minLength: 1, maxLength: 3 }),
    query,
  )
  .map(([scheme, h, path, q]) => `${scheme}${h}/${path.join('/')}${q}`);

const alt = fc.stringMatching(/^[a-z ]{0,8}$/);
const imageBlock = fc.oneof(
  fc.tuple(alt, externalUrl).map(([a, u]) => `![${a}](<${u}>)`),
  fc.tuple(alt, externalUrl).map(([a, u]) => `<img src="${u.replace(/"/g, '&quot;')}" alt="${a}">`),
  fc
    .tuple(externalUrl, alt)
    .map(
      ([u, c]) =>
        `<figure class="dp-figure"><img src="${u.replace(/"/g, '&quot;')}" alt="x"><figcaption class="dp-figure__caption">${c}</figcaption></figure>`,
    ),
  fc
    .array(externalUrl, { minLength: 1, maxLength: 3 })
    .map(
      (urls) =>
        `<figure class="dp-gallery"><div class="dp-gallery__items">${urls.map((u) => `<figure class="dp-figure"><img src="${u.replace(/"/g, '&quot;')}" alt=""></figure>`).join('')}</div></figure>`,
    ),
  fc
    .tuple(externalUrl, externalUrl)
    .map(([a, b]) => `- item ![a](<${a}>)\n- > quoted ![b](<${b}>) *em* and **strong**`),
);

const documentWithImages = fc
  .tuple(
    fc.array(imageBlock, { minLength: 1, maxLength: 5 }),
    fc.array(articleMarkdown, { maxLength: 2 }),
    fc.boolean(),
  )
  .map(([images, others, interleave]) => (interleave ? [...images, ...others] : [...others, ...images]).join('\n\n'));

const uuid = fc.uuid().map((u) => u.replace(/^(.{14})./, '$14').replace(/^(.{19})./, '$18'));
/** Stored media addresses (any case), and values the pipeline ignores. */
const mapValue = fc.oneof(
  { weight: 4, arbitrary: uuid.map((u) => `/api/media/${u}`) },
  { weight: 1, arbitrary: uuid.map((u) => `/api/media/${u.toUpperCase()}`) },
  { weight: 1, arbitrary: fc.constantFrom('', 'not a path', 'https://elsewhere.example/x.png', '/api/media/nope') },
);

/**
 * A random map over some of the document's external images, keyed as the conversion reports them
 * (externalImages, canonical), plus keys for images the document does not have.
 */
function mapFor(reported: string[]) {
  return fc
    .tuple(
      fc.subarray(reported),
      fc.array(mapValue, { minLength: reported.length, maxLength: reported.length }),
      fc.array(fc.tuple(fc.constantFrom('https://absent.example/', 'relative/', ''), segment, mapValue), {
        maxLength: 2,
      }),
    )
    .map(([keys, values, unrelated]) => {
      const map: Record<string, string> = {};
      keys.forEach((key, i) => {
        map[key] = values[i]!;
      });
      for (const [prefix, name, value] of unrelated) map[prefix + name] = value;
      return map;
    });
}

/** Whether the document converted (a refused one has nothing to compare), so a run counts its cases. */
const expectRewriteMatches = (markdown: string, map: Record<string, string>): boolean => {
  const plain = renderOrUndefined(markdown);
  if (!plain) return false;
  const rehosted = renderOrUndefined(markdown, map)!;
  expect(rewriteImageSourcesSync(plain.html, map)).toBe(rehosted.html);
  return true;
};

describe('rewriteImageSources: same html as converting again with the map', () => {
  it('holds for generated documents with external images and random maps (fast-check)', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        documentWithImages.chain((markdown) => {
          const reported = renderOrUndefined(markdown)?.externalImages ?? [];
          return fc.tuple(fc.constant(markdown), mapFor(reported));
        }),
        ([markdown, map]) => {
          if (expectRewriteMatches(markdown, map)) compared++;
        },
      ),
      { numRuns: 300 },
    );
    // Most generated documents convert; a run that compared (almost) nothing proves nothing.
    expect(compared).toBeGreaterThan(150);
  });

  it('actually substitutes: every reported image mapped to stored media leaves no external image', () => {
    let substituted = 0;
    fc.assert(
      fc.property(documentWithImages, fc.uuid(), (markdown, id) => {
        const plain = renderOrUndefined(markdown);
        if (!plain || plain.externalImages.length === 0) return;
        substituted++;
        const map = Object.fromEntries(plain.externalImages.map((u) => [u, `/api/media/${id}`]));
        const rewritten = rewriteImageSourcesSync(plain.html, map);
        expect(rewritten).toBe(renderOrUndefined(markdown, map)!.html);
        expect(renderOrUndefined(rewritten)?.externalImages).toEqual([]);
      }),
      { numRuns: 100 },
    );
    expect(substituted).toBeGreaterThan(30);
  });

  it('holds for every corpus article, with all, some and none of its images rehosted', () => {
    let withImages = 0;
    for (const { name, markdown } of articles()) {
      const plain = renderOrUndefined(markdown);
      if (!plain) continue;
      const images = plain.externalImages;
      if (images.length > 0) withImages++;
      const all = Object.fromEntries(
        images.map((u, i) => [u, `/api/media/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`]),
      );
      const some = Object.fromEntries(Object.entries(all).filter((_, i) => i % 2 === 0));
      for (const map of [all, some, {}]) {
        const rehosted = Object.keys(map).length === 0 ? plain : renderOrUndefined(markdown, map)!;
        expect(rewriteImageSourcesSync(plain.html, map), name).toBe(rehosted.html);
      }
    }
    expect(withImages).toBeGreaterThan(5);
  });

  it('rehosts protocol-relative images by their reported (https) address, and leaves stored images and html without images alone', () => {
    const stored = '/api/media/0b6c3c7e-1f2a-4b3c-8d4e-5f6a7b8c9d0e';
    const markdown = `![a](${stored})\n\n![b](//img.example.com/b.png)\n\n<figure class="dp-figure"><img src="//img.example.com/c.png"></figure>`;
    expect(renderArticleSync({ markdown, title: 'T' }).externalImages).toEqual([
      'https://img.example.com/b.png',
      'https://img.example.com/c.png',
    ]);
    const map = { 'https://img.example.com/b.png': stored, 'https://img.example.com/c.png': stored };
    expectRewriteMatches(markdown, map);
    expect(rewriteImageSourcesSync(renderArticleSync({ markdown, title: 'T' }).html, map)).not.toContain(
      'img.example.com',
    );
    // Keys that cannot be an output source (stored paths, relative or non-canonical spellings) are ignored.
    const plain = renderArticleSync({ markdown, title: 'T' }).html;
    expect(
      rewriteImageSourcesSync(plain, {
        [stored]: '/api/media/11111111-1111-4111-8111-111111111111',
        '//img.example.com/b.png': stored,
      }),
    ).toBe(plain);
    const noImages = renderArticleSync({ markdown: '# T\n\ntext *em*', title: 'T' }).html;
    expect(rewriteImageSourcesSync(noImages, { 'https://a.example/x.png': stored })).toBe(noImages);
  });
});

describe('rewriteImageSources through the worker pool', () => {
  let pool: ContentPool;
  beforeAll(() => {
    pool = testContentPool();
  });
  afterAll(async () => {
    await pool.close();
  });

  it('gives the same html as the in-thread rewrite', async () => {
    const markdown =
      '# T\n\n![a](https://img.example.com/a.png)\n\n<figure class="dp-figure"><img src="//img.example.com/b.png" alt=""></figure>';
    const plain = renderArticleSync({ markdown, title: 'T' });
    const map = {
      'https://img.example.com/a.png': '/api/media/0b6c3c7e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
      'https://img.example.com/b.png': '/api/media/11111111-1111-4111-8111-111111111111',
    };
    const expected = renderArticleSync({ markdown, title: 'T', rehosted: map }).html;
    expect(await pool.rewriteImageSources(plain.html, map)).toBe(expected);
    expect(expected).not.toContain('img.example.com');
  });
});

describe('storedMediaReferences: the stored files an output html shows', () => {
  const a = '0a0a0a0a-0a0a-4a0a-8a0a-0a0a0a0a0a0a';
  const b = '0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b';
  const c = '0c0c0c0c-0c0c-4c0c-8c0c-0c0c0c0c0c0c';

  it('finds images, videos and GIF islands, once each, in document order', () => {
    const html = renderArticleSync({
      title: '',
      markdown: [
        `![a](/api/media/${a.toUpperCase()})`,
        `<video src="/api/media/${b}"></video>`,
        `<div class="dp-gif" data-gif="${c}"><video src="/api/media/${c}" autoplay loop muted playsinline></video></div>`,
        `![a again](/api/media/${a})`,
      ].join('\n\n'),
    }).html;
    expect(storedMediaReferences(html)).toEqual([a, b, c]);
  });

  it('ignores media paths in text, code and links', () => {
    const html = renderArticleSync({
      title: '',
      markdown: `See \`<img src="/api/media/${a}">\` and [this](https://example.com/api/media/${b}).\n\n    /api/media/${c}`,
    }).html;
    expect(html).toContain(a);
    expect(storedMediaReferences(html)).toEqual([]);
  });
});
