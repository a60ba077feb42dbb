/**
 * fast-check arbitraries producing article Markdown from the body-format grammar (docs/api.md
 * "Article body" and "HTML islands"), valid and broken variants mixed, sometimes with blank
 * lines inside islands (CommonMark ends a raw HTML block at a blank line, so those must still
 * round-trip).
 */
import fc from 'fast-check';

const UUIDS = ['0f8fad5b-d9cb-469f-a165-70867728950e', '7c9e6679-7425-40de-944b-e07fc1f90ae7'];

const word = fc.constantFrom(
  'alpha',
  'beta',
  'gamma',
  'über',
  '日本語',
  'a&b',
  '1 < 2',
  'x_y',
  'tab\there',
  '"quoted"',
  "it's",
  '\\*',
  'www.example.com',
  '&amp;',
  '&#10;',
  '>',
  '<b>',
  '</pre>',
  '[x]',
  '~',
  '`',
);
const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const url = fc.constantFrom(
  'https://example.com/a',
  'http://example.org/b?c=1&d=2',
  '//cdn.example.net/x.png',
  '/relative',
  '#frag',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<b>x</b>',
  'mailto:a@b.c',
);
const imageUrl = fc.constantFrom(
  'https://img.example.com/a.png',
  'http://img.example.com/b.jpg',
  '//img.example.com/c.gif',
  `/api/media/${UUIDS[0]}`,
  'relative.png',
  'javascript:alert(1)',
  'https://img.example.com/a.png?x=1&y=2',
);

const inline: fc.Arbitrary<string> = fc.letrec<{ inline: string }>((tie) => ({
  inline: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    words,
    tie('inline').map((s) => `**${s}**`),
    tie('inline').map((s) => `*${s}*`),
    tie('inline').map((s) => `~~${s}~~`),
    words.map((s) => `\`${s.replace(/`/g, '')}\``),
    fc.tuple(words, url).map(([t, u]) => `[${t.replace(/[[\]]/g, '')}](${u})`),
    fc.tuple(words, imageUrl).map(([t, u]) => `![${t.replace(/[[\]]/g, '')}](${u})`),
    fc.tuple(tie('inline'), tie('inline')).map(([a, b]) => `${a} ${b}`),
    fc.constantFrom(
      '<em>raw</em>',
      '<span onclick="x()">s</span>',
      '<img src=x onerror=alert(1)>',
      '<br>',
      '<kbd>k</kbd>',
    ),
  ),
})).inline;

const layout = fc.constantFrom('', ' data-layout="full"', ' data-layout="mid"', ' data-layout="wide"');
const sep = fc.constantFrom('', '\n', '\n\n'); // blank lines inside islands split the raw HTML block
const imgTag = imageUrl.map((u) => `<img src="${u}" alt="pic">`);

const figure = fc
  .tuple(layout, imgTag, fc.option(words), sep, fc.boolean())
  .map(
    ([l, img, cap, s, classed]) =>
      `<figure class="dp-figure"${l}>${s}${img}${s}${cap === null ? '' : `<figcaption${classed ? ' class="dp-figure__caption"' : ''}>${cap}</figcaption>`}${s}</figure>`,
  );
const gallery = fc
  .tuple(layout, fc.array(figure, { minLength: 0, maxLength: 3 }), fc.option(words), fc.boolean(), sep)
  .map(
    ([l, items, cap, strayImg, s]) =>
      `<figure class="dp-gallery"${l}>${s}${strayImg ? '<img src="https://e.com/stray.png">' : ''}<div class="dp-gallery__items">${items.join(s)}</div>${cap === null ? '' : `<figcaption class="dp-figure__caption">${cap}</figcaption>`}${s}</figure>`,
  );
const embedSrc = fc.constantFrom(
  'https://www.youtube.com/embed/dQw4w9WgXcQ',
  'https://player.vimeo.com/video/123456',
  'https://rutube.ru/play/embed/abcdef123456',
  'https://vk.com/video_ext.php?oid=1&id=2',
  'https://www.dailymotion.com/embed/video/x7tgad0',
  'https://www.figma.com/embed?embed_host=x',
  'https://codepen.io/a/embed/b',
  'https://evil.example.com/embed/1',
  'https://e.com/movie.mp4',
  'javascript:alert(1)',
);
const iframe = fc
  .tuple(embedSrc, fc.boolean())
  .map(
    ([src, extras]) =>
      `<iframe src="${src}"${extras ? ' loading="lazy" allowfullscreen title="Player" onload="alert(1)" srcdoc="<script>x</script>"' : ''}></iframe>`,
  );
const videoEmbed = fc
  .tuple(fc.constantFrom('youtube', 'vimeo', 'bogus'), fc.constantFrom('embed', 'file'), iframe, sep)
  .map(
    ([provider, source, frame, s]) =>
      `<div data-video data-provider="${provider}" data-source="${source}">${s}${frame}${s}</div>`,
  );
const genericEmbed = fc
  .tuple(iframe, sep)
  .map(([frame, s]) => `<div class="dp-embed" data-dp-embed>${s}${frame}${s}</div>`);
const mediaRef = fc.constantFrom(`/api/media/${UUIDS[1]}`, 'https://cdn.example.com/i.png');
const linkCard = fc
  .tuple(url, words, words, fc.option(mediaRef), fc.option(mediaRef), fc.constantFrom('', '\n'))
  .map(
    ([href, title, desc, favicon, media, nl]) =>
      `<a class="dp-link-card" href="${href}" target="_blank" rel="noopener" data-dp-link-card>${nl}` +
      `<div class="dp-link-card__body"><div class="dp-link-card__title">${title}</div><div class="dp-link-card__desc">${desc}</div>` +
      `<div class="dp-link-card__domain">${favicon === null ? '' : `<img class="dp-link-card__favicon" src="${favicon}" alt="" width="16" height="16">`}<span class="dp-link-card__domain-label">example.com</span></div></div>` +
      `${media === null ? '' : `<div class="dp-link-card__media" style="background-image:url(${media})" role="presentation"></div>`}</a>`,
  );
const details = fc
  .tuple(words, inline, sep)
  .map(([summary, content, s]) => `<details><summary>${summary}</summary>${s}${content}${s}</details>`);
const gif = fc
  .tuple(fc.constantFrom(...UUIDS), fc.constantFrom(...UUIDS, 'https://e.com/a.gif'))
  .map(
    ([declared, src]) =>
      `<div class="dp-gif" data-gif="${declared}"><video src="${src.startsWith('http') ? src : `/api/media/${src}`}" autoplay loop muted playsinline></video></div>`,
  );
const video = fc.constantFrom(
  '<video src="https://e.com/v.mp4" controls></video>',
  `<video src="/api/media/${UUIDS[0]}" loop></video>`,
);

const block: fc.Arbitrary<string> = fc.letrec<{ block: string }>((tie) => ({
  block: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    inline,
    fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([n, t]) => `${'#'.repeat(n)} ${t}`),
    fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((i) => `- ${i}`).join('\n')),
    fc
      .tuple(fc.integer({ min: 0, max: 9 }), fc.array(inline, { minLength: 1, maxLength: 3 }))
      .map(([start, items]) => items.map((it, k) => `${start + k}. ${it}`).join('\n')),
    fc.tuple(inline, inline).map(([a, b]) => `- ${a}\n  - ${b}\n    - ${a}`),
    tie('block').map((b) =>
      b
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n'),
    ),
    fc
      .tuple(fc.constantFrom('', 'js', 'c++', 'bad lang'), words)
      .map(([lang, code]) => `\`\`\`${lang}\n${code}\n\n  ${code}\n\`\`\``),
    fc.constant('---'),
    fc.tuple(words, words, words, words).map(([a, b, c, d]) => `| ${a} | ${b} |\n| --- | :-: |\n| ${c} | ${d} |`),
    figure,
    gallery,
    videoEmbed,
    genericEmbed,
    iframe,
    linkCard,
    details,
    gif,
    video,
  ),
})).block;

export const articleMarkdown = fc.array(block, { minLength: 1, maxLength: 8 }).map((blocks) => blocks.join('\n\n'));
export const articleTitle = fc.constantFrom('Title', 'A <b>bold</b> & "quoted" title', '', 'Line\n\nbreaks');
