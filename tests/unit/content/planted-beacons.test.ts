import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderArticleSync } from '../../../server/content';
import { pointsAtServiceOutsideMedia, serviceAddress } from '../../../server/content/urls';

/**
 * A reader beacon of another article planted in this one, in any spelling a browser, a proxy or
 * a lenient server would still route to `/api/reader/…`, and wherever an element loads an image
 * (`src`, `srcset`, `<picture><source>`, `poster`, a style's `url()`, a link card's favicon and
 * media, a captioned-image island): removed from the html and reported in `selfImages` (the
 * write's `warnings`) exactly as the author wrote it.
 */
const ORIGIN = 'http://localhost:3000';
const ID = 'abcdefghij';
const MEDIA = '/api/media/0f8fad5b-d9cb-469f-a165-70867728950e';
const render = (markdown: string, selfOrigins: string[] = [ORIGIN]) =>
  renderArticleSync({ markdown, title: 'T', selfOrigins });

/** The planted article's id is in no kept markup: its beacon is gone, in whatever spelling. */
function expectGone(html: string) {
  expect(html).not.toContain(ID);
  expect(html).not.toMatch(/reader/i);
}

describe('planted beacons in other spellings (Markdown images)', () => {
  const spellings: [string, string][] = [
    ['a doubled slash after the origin', `${ORIGIN}//api/reader/${ID}/open.gif`],
    ['a doubled slash inside the path', `${ORIGIN}/api//reader/${ID}/open.gif`],
    ['protocol-relative with a doubled slash', `//localhost:3000//api/reader/${ID}/open.gif`],
    ['relative with a doubled slash', `/api//reader/${ID}/read.gif`],
    ['many slashes', `${ORIGIN}///api///reader//${ID}/open.gif`],
    ['a dot segment', `${ORIGIN}/api/./reader/${ID}/open.gif`],
    ['a parent segment', `${ORIGIN}/api/x/../reader/${ID}/open.gif`],
    ['an escaped parent segment', `${ORIGIN}/api/x/%2E%2e/reader/${ID}/open.gif`],
    ['dot segments hidden behind escaped slashes', `${ORIGIN}/api/x%2f..%2freader/${ID}/open.gif`],
    ['a doubly escaped letter', `${ORIGIN}/api/%2572eader/${ID}/open.gif`],
    ['an escaped slash', `${ORIGIN}/api%2Freader/${ID}/open.gif`],
    ['a backslash', `${ORIGIN}/api\\reader/${ID}/open.gif`],
    ['upper-case scheme, host and path', `HTTP://LOCALHOST:3000/API/READER/${ID}/open.gif`],
    ['a loopback address', `http://127.0.0.1:3000//api/reader/${ID}/complete.gif`],
    ['an IPv6 loopback address', `http://[::1]:3000/api//reader/${ID}/open.gif`],
    ['a trailing dot on the host', `http://localhost.:3000//api/reader/${ID}/open.gif`],
  ];

  // With the public origin set, and without (then only the beacon path can give them away).
  for (const [what, url] of spellings) {
    for (const selfOrigins of [[ORIGIN], []]) {
      it(`removes and reports a beacon with ${what} (${selfOrigins.length ? 'PUBLIC_ORIGIN set' : 'no PUBLIC_ORIGIN'})`, () => {
        const out = render(`Text.\n\n![x](${url})\n\n![kept](${MEDIA})`, selfOrigins);
        expectGone(out.html);
        expect(out.html).toContain(`src="${MEDIA}"`);
        expect(out.selfImages).toEqual([url]);
        expect(out.externalImages).toEqual([]);
      });
    }
  }

  it('removes them on any host, without a public origin', () => {
    const url = `https://elsewhere.example//api/reader/${ID}/open.gif`;
    const out = render(`Text.\n\n![x](${url})`, []);
    expectGone(out.html);
    expect(out.selfImages).toEqual([url]);
  });

  it('reports every spelling once, in document order', () => {
    const urls = spellings.map(([, url]) => url);
    const out = render(['Text.', ...[...urls, urls[0]].map((url, i) => `![p${i}](${url})`)].join('\n\n'));
    expectGone(out.html);
    expect(out.selfImages).toEqual(urls);
  });
});

describe('planted beacons wherever an element loads an image (raw HTML islands)', () => {
  const cases: [string, (url: string) => string, string][] = [
    [
      'a captioned-image island',
      (url) =>
        `<figure class="dp-figure"><img src="${url}" alt="A"><figcaption class="dp-figure__caption">C</figcaption></figure>`,
      `http://127.0.0.1:3000//api/reader/${ID}/open.gif`,
    ],
    [
      'an img with an upper-case scheme',
      (url) => `<img src="${url}">`,
      `HTTP://LOCALHOST:3000/API/READER/${ID}/open.gif`,
    ],
    ['srcset', (url) => `<img src="${MEDIA}" srcset="${url} 2x">`, `${ORIGIN}/api/reader/${ID}/open.gif`],
    [
      'the second candidate of a srcset',
      (url) => `<img src="${MEDIA}" srcset="https://cdn.example/a.png 1x, ${url} 2x">`,
      `//localhost:3000/api//reader/${ID}/open.gif`,
    ],
    [
      'picture > source srcset',
      (url) => `<picture><source srcset="${url}"><img src="${MEDIA}"></picture>`,
      `${ORIGIN}/api/reader/${ID}/read.gif`,
    ],
    [
      'video poster',
      (url) => `<video poster="${url}" src="${MEDIA}"></video>`,
      `${ORIGIN}/api/reader/${ID}/complete.gif`,
    ],
    [
      'a style url()',
      (url) => `<p style="background-image:url('${url}')">Styled</p>`,
      `${ORIGIN}/api/reader/${ID}/open.gif`,
    ],
    [
      'a style url() with CSS escapes',
      (url) => `<p style="background:u\\72l(${url})">Styled</p>`,
      `HTTP://LOCALHOST:3000/api/./reader/${ID}/open.gif`,
    ],
    [
      'a style image-set()',
      (url) => `<div style='background-image:image-set("${url}" 1x)'>Styled</div>`,
      `/api/reader/${ID}/open.gif`,
    ],
    ['an SVG image', (url) => `<svg><image href="${url}"></image></svg>`, `${ORIGIN}/api/reader/${ID}/open.gif`],
    [
      "a link card's favicon",
      (url) => linkCard({ favicon: url, media: MEDIA }),
      `HTTP://LOCALHOST:3000/API/READER/${ID}/open.gif`,
    ],
    ["a link card's media", (url) => linkCard({ favicon: MEDIA, media: url }), `${ORIGIN}/api//reader/${ID}/open.gif`],
  ];

  for (const [where, markup, url] of cases) {
    it(`removes and reports a beacon in ${where}`, () => {
      const out = render(`Text.\n\n${markup(url)}\n\nAfter.`);
      expectGone(out.html);
      expect(out.selfImages).toEqual([url]);
    });
  }

  it('keeps what is not a beacon beside the removed one', () => {
    const out = render(
      `<img src="${MEDIA}" alt="kept" srcset="${ORIGIN}/api/reader/${ID}/open.gif 2x">\n\n${linkCard({ favicon: `${ORIGIN}//api/reader/${ID}/open.gif`, media: MEDIA })}`,
    );
    expectGone(out.html);
    expect(out.html).toContain(`<img src="${MEDIA}" alt="kept">`);
    expect(out.html).toContain(`style="background-image:url(${MEDIA})"`);
    expect(out.html).toContain('dp-link-card__domain-label');
    expect(out.selfImages).toEqual([`${ORIGIN}/api/reader/${ID}/open.gif`, `${ORIGIN}//api/reader/${ID}/open.gif`]);
  });

  it('reports in document order, each address once', () => {
    const a = `${ORIGIN}//api/reader/${ID}/open.gif`;
    const b = `${ORIGIN}/api//reader/${ID}/read.gif`;
    const out = render(
      `<video poster="${a}"><source src="${b}"></video>\n\n<img src="${MEDIA}" srcset="${b} 1x, ${a} 2x">\n\n![x](${a})`,
    );
    expectGone(out.html);
    expect(out.selfImages).toEqual([a, b]);
  });
});

describe('pages of the public origin in other spellings', () => {
  it('removes and reports them on every loopback spelling of its host, not on another port', () => {
    const pages = [
      'http://127.0.0.1:3000/some-page',
      'http://[::1]:3000/some-page',
      'HTTP://LOCALHOST:3000//some-page',
      'http://localhost.:3000/some-page',
      'http://127.1:3000/x.png',
    ];
    const out = render([...pages, 'http://localhost:4000/x.png'].map((url) => `![p](${url})`).join('\n\n'));
    expect(out.selfImages).toEqual(pages);
    expect(out.externalImages).toEqual(['http://localhost:4000/x.png']);
  });

  it('compares a named host case folded, with or without its trailing dot, over http and https', () => {
    const pages = ['https://BLOG.Example./a-page', 'http://blog.example/a-page', 'https://blog.example:443/p.png'];
    const out = render([...pages, 'http://blog.example:8080/p.png'].map((url) => `![p](${url})`).join('\n\n'), [
      'https://blog.example',
    ]);
    expect(out.selfImages).toEqual(pages);
    expect(out.externalImages).toEqual(['http://blog.example:8080/p.png']);
  });
});

describe('serviceAddress, the one reading of an address', () => {
  it('collapses slashes, resolves dot segments, decodes escapes and folds case', () => {
    expect(serviceAddress(`HTTP://LOCALHOST:3000//API/./x/..//%2572eader/${ID}/Open.gif`)).toMatchObject({
      host: 'localhost',
      port: '3000',
      path: `/api/reader/${ID}/open.gif`,
    });
    expect(serviceAddress('/api//reader/x')).toMatchObject({ host: null, path: '/api/reader/x' });
    expect(serviceAddress('https://Blog.Example./p')).toMatchObject({ host: 'blog.example', port: '443' });
    expect(serviceAddress('data:image/gif;base64,R0lGOD')).toBeUndefined();
    expect(serviceAddress('javascript:alert(1)')).toBeUndefined();
  });

  it('keeps stored files and other hosts out of the rule', () => {
    expect(pointsAtServiceOutsideMedia(`${ORIGIN}${MEDIA}`, [ORIGIN])).toBe(false);
    expect(pointsAtServiceOutsideMedia('https://cdn.example/api/readers.png', [ORIGIN])).toBe(false);
    expect(pointsAtServiceOutsideMedia('https://cdn.example/api/media/../reader/x/open.gif', [])).toBe(true);
  });
});

/** A link card island (docs/api.md) with the given favicon and media addresses. */
function linkCard({ favicon, media }: { favicon: string; media: string }): string {
  return (
    '<a class="dp-link-card" href="https://example.com/" target="_blank" rel="noopener noreferrer" data-dp-link-card>' +
    '<div class="dp-link-card__body"><div class="dp-link-card__title">Title</div><div class="dp-link-card__desc">Desc</div>' +
    `<div class="dp-link-card__domain"><img class="dp-link-card__favicon" src="${favicon}" alt=""><span class="dp-link-card__domain-label">example.com</span></div></div>` +
    `<div class="dp-link-card__media" style="background-image:url(${media})" role="presentation"></div></a>`
  );
}

describe('planted beacons, however spelled and wherever placed (property)', () => {
  const letters = 'api/reader';

  /** `api/reader` with random case, escapes (sometimes doubled), extra slashes and dot segments. */
  const beaconPath = fc
    .tuple(
      fc.array(fc.constantFrom('plain', 'upper', 'escaped', 'Escaped', 'double'), {
        minLength: letters.length,
        maxLength: letters.length,
      }),
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 3, maxLength: 3 }),
      fc.constantFrom('', '/.', '/x/..', '/x/%2e%2E', '/./y/..'),
    )
    .map(([forms, slashes, dots]) => {
      const spelled = [...letters]
        .map((char, i) => {
          if (char === '/') return '/'.repeat(slashes[1]!);
          const hex = char.charCodeAt(0).toString(16);
          switch (forms[i]) {
            case 'upper':
              return char.toUpperCase();
            case 'escaped':
              return `%${hex}`;
            case 'Escaped':
              return `%${hex.toUpperCase()}`;
            case 'double':
              return `%25${hex}`;
            default:
              return char;
          }
        })
        .join('');
      const [api, reader] = spelled.split(/\/+/);
      return `${'/'.repeat(slashes[0]!)}${api}${dots}${'/'.repeat(slashes[1]!)}${reader}${'/'.repeat(slashes[2]!)}${ID}/open.gif`;
    });

  const randomCase = (text: string) =>
    fc
      .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
      .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

  const prefix = fc.oneof(
    fc
      .tuple(
        randomCase('http'),
        fc.constantFrom('', 's'),
        randomCase('localhost'),
        fc.constantFrom('', '.'),
        fc.constantFrom(':3000', ''),
      )
      .map(([scheme, s, host, dot, port]) => `${scheme}${s}://${host}${dot}${port}`),
    fc
      .tuple(randomCase('http'), fc.constantFrom('127.0.0.1:3000', '[::1]:3000', 'cdn.example'))
      .map(([scheme, host]) => `${scheme}://${host}`),
    fc.constantFrom('//localhost:3000', '//elsewhere.example', ''),
  );

  const places: ((url: string) => string)[] = [
    (url) => `![x](${url})`,
    (url) => `<img src="${url}">`,
    (url) => `<figure class="dp-figure"><img src="${url}"></figure>`,
    (url) => `<img src="${MEDIA}" srcset="${url} 2x">`,
    (url) => `<picture><source srcset="${url}"><img src="${MEDIA}"></picture>`,
    (url) => `<video poster="${url}"></video>`,
    (url) => `<p style="background:url(${url})">S</p>`,
    (url) => linkCard({ favicon: url, media: MEDIA }),
    (url) => linkCard({ favicon: MEDIA, media: url }),
  ];

  it('removes each and reports it as written', () => {
    let ran = 0;
    fc.assert(
      fc.property(prefix, beaconPath, fc.integer({ min: 0, max: places.length - 1 }), (origin, path, place) => {
        ran++;
        // Without an origin a path has one leading slash: `//api/…` would name a host "api".
        const url = origin ? `${origin}${path}` : path.replace(/^\/+/, '/');
        const out = render(`Text.\n\n${places[place]!(url)}\n\nAfter.`);
        expectGone(out.html);
        expect(out.selfImages).toEqual([url]);
      }),
      { numRuns: 300 },
    );
    expect(ran).toBeGreaterThanOrEqual(300);
  });
});
