/** HTML islands (docs/api.md): each island's valid form is kept, invalid variants handled. */
import { describe, expect, it } from 'vitest';
import { body, render } from './render';

const U1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
const U2 = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

/** What every kept iframe carries, whatever the author wrote (plugins/iframe.ts). */
const GUARD =
  ' sandbox="allow-scripts allow-same-origin allow-popups allow-presentation" referrerpolicy="strict-origin-when-cross-origin"';

describe('captioned image figure.dp-figure', () => {
  const valid = `<figure class="dp-figure" data-layout="mid"><img src="/api/media/${U1}" alt="A"><figcaption class="dp-figure__caption">Caption <em>x</em></figcaption></figure>`;
  it('keeps the valid form unchanged', () => {
    expect(body(valid)).toBe(valid);
  });
  it('accepts the island written over several lines, with or without blank lines', () => {
    const multi = `<figure class="dp-figure" data-layout="mid">\n<img src="/api/media/${U1}" alt="A">\n<figcaption class="dp-figure__caption">Caption <em>x</em></figcaption>\n</figure>`;
    expect(body(multi)).toBe(valid);
    expect(body(multi.replace(/\n/g, '\n\n'))).toBe(valid);
  });
  it('keeps exactly one main image and ignores a caption without the caption class', () => {
    expect(
      body(
        '<figure class="dp-figure"><img src="https://e.com/1.png"><img src="https://e.com/2.png"><figcaption>plain</figcaption></figure>',
      ),
    ).toBe('<figure class="dp-figure"><img src="https://e.com/1.png"></figure>');
  });
  it('removes layout values other than full and mid', () => {
    expect(body('<figure class="dp-figure" data-layout="wide"><img src="https://e.com/1.png"></figure>')).toBe(
      '<figure class="dp-figure"><img src="https://e.com/1.png"></figure>',
    );
    expect(body('<figure class="dp-figure" data-layout="full"><img src="https://e.com/1.png"></figure>')).toContain(
      'data-layout="full"',
    );
  });
  it('drops a figure without a usable image and unwraps a figure without the island class', () => {
    expect(
      body('<figure class="dp-figure"><figcaption class="dp-figure__caption">c</figcaption></figure>\n\nafter'),
    ).toBe('<p>after</p>');
    expect(body('<figure><img src="https://e.com/1.png"><figcaption>cap</figcaption></figure>')).toBe(
      '<p><img src="https://e.com/1.png"></p>\n<p>cap</p>',
    );
  });
});

describe('gallery figure.dp-gallery', () => {
  const item = (n: number) => `<figure class="dp-figure"><img src="https://e.com/${n}.png" alt="${n}"></figure>`;
  const valid = `<figure class="dp-gallery" data-layout="full"><div class="dp-gallery__items">${item(1)}${item(2)}</div><figcaption class="dp-figure__caption">All</figcaption></figure>`;
  it('keeps the valid form unchanged', () => {
    expect(body(valid)).toBe(valid);
  });
  it('drops an img beside the items container and layout on items', () => {
    expect(
      body(
        `<figure class="dp-gallery"><img src="https://e.com/x.png"><div class="dp-gallery__items"><figure class="dp-figure" data-layout="mid"><img src="https://e.com/1.png"></figure></div></figure>`,
      ),
    ).toBe(
      '<figure class="dp-gallery"><div class="dp-gallery__items"><figure class="dp-figure"><img src="https://e.com/1.png"></figure></div></figure>',
    );
  });
  it('keeps an item caption with its item, not as the gallery caption', () => {
    const out = body(
      `<figure class="dp-gallery"><div class="dp-gallery__items"><figure class="dp-figure"><img src="https://e.com/1.png"><figcaption class="dp-figure__caption">item</figcaption></figure></div></figure>`,
    );
    expect(out).toBe(
      '<figure class="dp-gallery"><div class="dp-gallery__items"><figure class="dp-figure"><img src="https://e.com/1.png"><figcaption class="dp-figure__caption">item</figcaption></figure></div></figure>',
    );
  });
  it('places the gallery caption right after the items container', () => {
    expect(
      body(
        `<figure class="dp-gallery"><figcaption class="dp-figure__caption">G</figcaption><div class="dp-gallery__items">${item(1)}</div></figure>`,
      ),
    ).toBe(
      `<figure class="dp-gallery"><div class="dp-gallery__items">${item(1)}</div><figcaption class="dp-figure__caption">G</figcaption></figure>`,
    );
  });
  it('drops a gallery without items', () => {
    expect(body('<figure class="dp-gallery"><div class="dp-gallery__items"></div></figure>\n\nx')).toBe('<p>x</p>');
  });
});

describe('video embed div[data-video]', () => {
  const cases: [string, string][] = [
    ['youtube', 'https://www.youtube.com/embed/dQw4w9WgXcQ'],
    ['youtube', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
    ['vimeo', 'https://player.vimeo.com/video/76979871'],
    ['rutube', 'https://rutube.ru/play/embed/c6cc4d620b1d4338901770a44b3e82f4'],
    ['vk', 'https://vk.com/video_ext.php?oid=-1&id=2&hash=abc'],
    ['dailymotion', 'https://www.dailymotion.com/embed/video/x7tgad0'],
  ];
  it.each(cases)('keeps a %s embed (%s)', (provider, src) => {
    const island = `<div data-video="" data-provider="${provider}" data-source="embed"><iframe src="${src.replace(/&/g, '&#x26;')}" allowfullscreen></iframe></div>`;
    const kept = island.replace('allowfullscreen>', `allowfullscreen${GUARD}>`);
    expect(body(island)).toBe(kept);
    expect(body(kept)).toBe(kept);
  });
  it('takes the provider from the validated address and keeps data-source=embed', () => {
    expect(
      body(
        '<div data-video data-provider="vimeo" data-source="file"><iframe src="http://www.youtube.com/embed/dQw4w9WgXcQ" onload="alert(1)"></iframe></div>',
      ),
    ).toBe(
      `<div data-video="" data-provider="youtube" data-source="embed"><iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"${GUARD}></iframe></div>`,
    );
  });
  it.each([
    ['a direct video file', 'https://e.com/movie.mp4'],
    ['a provider page that is not an embed address', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    ['an unknown host', 'https://evil.example/embed/dQw4w9WgXcQ'],
    ['a look-alike host', 'https://www.youtube.com.evil.example/embed/dQw4w9WgXcQ'],
    ['a javascript: src', 'javascript:alert(1)'],
  ])('drops the island for %s', (_kind, src) => {
    expect(
      body(`<div data-video data-provider="youtube" data-source="embed"><iframe src="${src}"></iframe></div>\n\nx`),
    ).toBe('<p>x</p>');
  });
});

describe('generic embed div.dp-embed[data-dp-embed]', () => {
  it('keeps an allowlisted host with src, loading, allowfullscreen and title only', () => {
    expect(
      body(
        '<div class="dp-embed" data-dp-embed><iframe src="https://www.figma.com/embed?url=x" loading="lazy" allowfullscreen title="Design" width="800" sandbox="" srcdoc="x"></iframe></div>',
      ),
    ).toBe(
      `<div class="dp-embed" data-dp-embed=""><iframe src="https://www.figma.com/embed?url=x" loading="lazy" allowfullscreen title="Design"${GUARD}></iframe></div>`,
    );
  });
  it('wraps a lone allowlisted iframe and forces https', () => {
    expect(body('<iframe src="http://codepen.io/team/embed/abc"></iframe>')).toBe(
      `<div class="dp-embed" data-dp-embed=""><iframe src="https://codepen.io/team/embed/abc"${GUARD}></iframe></div>`,
    );
  });
  it('lifts an allowlisted iframe written inside a paragraph out of it, splitting the paragraph', () => {
    const embed = `<div class="dp-embed" data-dp-embed=""><iframe src="https://codepen.io/team/embed/abc"${GUARD}></iframe></div>`;
    expect(body('see <iframe src="https://codepen.io/team/embed/abc"></iframe> here')).toBe(
      `<p>see</p>\n${embed}\n<p>here</p>`,
    );
    expect(body('see *it <iframe src="https://codepen.io/team/embed/abc"></iframe> now*')).toBe(
      `<p>see <em>it </em></p>\n${embed}\n<p><em> now</em></p>`,
    );
    expect(body('> quoted <iframe src="https://codepen.io/team/embed/abc"></iframe>')).toBe(
      `<blockquote>\n<p>quoted</p>${embed}\n</blockquote>`,
    );
    // The lifted form is what the service returns, so it must read back unchanged (round trip).
    const lifted = body('a <iframe src="https://codepen.io/team/embed/abc"></iframe> b');
    expect(body(lifted)).toBe(lifted);
  });
  it('overrides a sandbox, referrerpolicy or allow the author wrote with its own', () => {
    expect(
      body(
        '<iframe src="https://codepen.io/team/embed/abc" sandbox="allow-scripts allow-top-navigation" referrerpolicy="unsafe-url" allow="camera"></iframe>',
      ),
    ).toBe(
      `<div class="dp-embed" data-dp-embed=""><iframe src="https://codepen.io/team/embed/abc"${GUARD}></iframe></div>`,
    );
  });
  it.each([
    ['a generic embed', '<iframe src="https://user:pw@codepen.io/team/embed/abc"></iframe>'],
    [
      'a generic embed (user only)',
      '<div class="dp-embed" data-dp-embed><iframe src="https://user@www.figma.com/embed?url=x"></iframe></div>',
    ],
    ['a protocol-relative embed', '<iframe src="//user:pw@codepen.io/team/embed/abc"></iframe>'],
    [
      'a video embed',
      '<div data-video data-provider="youtube" data-source="embed"><iframe src="https://user:pw@www.youtube.com/embed/dQw4w9WgXcQ"></iframe></div>',
    ],
  ])('drops %s whose URL carries user-info', (_kind, markup) => {
    expect(body(`${markup}\n\nx`)).toBe('<p>x</p>');
  });
  it('still removes a disallowed iframe inside a paragraph, keeping the text', () => {
    expect(body('see <iframe src="https://evil.example/x"></iframe> here')).toBe('<p>see  here</p>');
  });
  it('removes iframes from other hosts, wrapper included', () => {
    expect(
      body(
        '<div class="dp-embed" data-dp-embed><iframe src="https://evil.example/x"></iframe></div>\n\n<iframe src="https://figma.com.evil.example/"></iframe>\n\nx',
      ),
    ).toBe('<p>x</p>');
  });
});

describe('link card a.dp-link-card', () => {
  const card = (inner: string, href = 'https://example.com/post') =>
    `<a class="dp-link-card" href="${href}" target="_blank" rel="noopener noreferrer" data-dp-link-card="">\n${inner}</a>`;
  const bodyPart = (favicon = '') =>
    `<div class="dp-link-card__body"><div class="dp-link-card__title">Title</div><div class="dp-link-card__desc">Desc</div><div class="dp-link-card__domain">${favicon}<span class="dp-link-card__domain-label">example.com</span></div></div>`;
  const favicon = `<img class="dp-link-card__favicon" src="/api/media/${U1}" alt="" width="16" height="16">`;
  const media = `<div class="dp-link-card__media" style="background-image:url(/api/media/${U2})" role="presentation"></div>`;

  it('keeps the full documented structure with stored favicon and media', () => {
    const valid = card(bodyPart(favicon) + media);
    expect(body(valid)).toBe(valid);
  });
  it('accepts the card written on one line', () => {
    expect(body(card(bodyPart(favicon) + media).replace('\n', ''))).toBe(card(bodyPart(favicon) + media));
  });
  it('omits favicon and media that are not stored media files', () => {
    const external = card(
      bodyPart('<img class="dp-link-card__favicon" src="https://example.com/favicon.ico">') +
        '<div class="dp-link-card__media" style="background-image:url(https://example.com/i.png)" role="presentation"></div>',
    );
    expect(body(external)).toBe(card(bodyPart()));
  });
  it('regenerates the media style instead of copying author CSS', () => {
    const sneaky = card(
      bodyPart() +
        `<div class="dp-link-card__media" style="background-image: url('/api/media/${U2}') ;" role="presentation"></div>`,
    );
    expect(body(sneaky)).toBe(card(bodyPart() + media));
    const injected = card(
      bodyPart() +
        `<div class="dp-link-card__media" style="background-image:url(/api/media/${U2});position:fixed" role="presentation"></div>`,
    );
    expect(body(injected)).toBe(card(bodyPart()));
  });
  it('keeps texts as plain text and completes missing parts', () => {
    expect(
      body(card('<div class="dp-link-card__body"><div class="dp-link-card__title">T <b onclick="x">b</b></div></div>')),
    ).toBe(
      card(
        '<div class="dp-link-card__body"><div class="dp-link-card__title">T b</div><div class="dp-link-card__desc"></div><div class="dp-link-card__domain"><span class="dp-link-card__domain-label"></span></div></div>',
      ),
    );
  });
  it('drops a card whose href is not absolute http(s)', () => {
    expect(body(`${card(bodyPart(), 'javascript:alert(1)')}\n\nx`)).toBe('<p>x</p>');
  });
  it('does not report the favicon as a body image', () => {
    expect(render(card(bodyPart(favicon))).externalImages).toEqual([]);
  });
});

describe('spoiler details/summary', () => {
  it('keeps details with summary and ordinary content, without handlers', () => {
    expect(
      body('<details open ontoggle="alert(1)"><summary onclick="x">More</summary>\n\nHidden **text**\n\n</details>'),
    ).toBe('<details><summary>More</summary>\n<p>Hidden <strong>text</strong></p>\n</details>');
  });
  it('moves the summary first', () => {
    expect(body('<details>body<summary>S</summary></details>')).toBe('<details><summary>S</summary>body</details>');
  });
  it('unwraps a summary outside details', () => {
    expect(body('<summary>S</summary>')).toBe('<p>S</p>');
  });
});

describe('GIF div.dp-gif', () => {
  const gif = `<div class="dp-gif" data-gif="${U1}"><video src="/api/media/${U1}" autoplay loop muted playsinline></video></div>`;
  it('keeps the valid form unchanged', () => {
    expect(body(gif)).toBe(gif);
  });
  it('restores the player attributes from the island definition', () => {
    expect(
      body(`<div class="dp-gif" data-gif="${U1}"><video src="/api/media/${U1}" controls onplay="x()"></video></div>`),
    ).toBe(gif);
  });
  it.each([
    ['an external video src', `<div class="dp-gif" data-gif="${U1}"><video src="https://e.com/a.mp4"></video></div>`],
    [
      'a data-gif naming another file',
      `<div class="dp-gif" data-gif="${U2}"><video src="/api/media/${U1}"></video></div>`,
    ],
    ['no video', `<div class="dp-gif" data-gif="${U1}"></div>`],
  ])('drops the island with %s', (_kind, island) => {
    expect(body(`${island}\n\nx`)).toBe('<p>x</p>');
  });
});

describe('video elements outside islands', () => {
  it('removes an external file src (sanitization rule 2)', () => {
    expect(body('<video src="https://e.com/v.mp4" controls><source src="https://e.com/v.webm"></video>\n\nx')).toBe(
      '<p><video></video></p>\n<p>x</p>',
    );
  });
  it('a video that lost its src is not content: a body of only that is empty after conversion (rule 3)', () => {
    expect(() => body('<video src="https://e.com/v.mp4" controls><source src="https://e.com/v.webm"></video>')).toThrow(
      /empty after conversion/,
    );
    expect(() =>
      body('<p><video src="https://e.com/a.mp4"></video> <video src="https://e.com/b.mp4"></video></p>'),
    ).toThrow(/empty after conversion/);
  });
  it('keeps a stored media src', () => {
    expect(body(`<video src="/api/media/${U1}" loop></video>`)).toBe(
      `<p><video src="/api/media/${U1}" loop></video></p>`,
    );
  });
});
