/**
 * The sanitizer allowlist, as data. A complete schema of our own: nothing is
 * inherited from hast-util-sanitize's defaultSchema, because rehype-sanitize replaces top-level
 * keys wholesale and silent defaults are what an audit misses.
 *
 * Property names are hast names (`className`, `dataLayout`, `allowFullScreen`). A list
 * `[name, v1, v2…]` or `[name, /re/]` is a value allowlist; class lists are filtered item by item.
 * Everything here is only the first gate: the trusted post-plugins in ./plugins rebuild every
 * island from validated values (hosts, media uuids, structure), see pipeline.ts.
 */
import type { Schema } from 'hast-util-sanitize';

import { UUID_SOURCE as UUID } from '../foundation/uuid';

export const sanitizeSchema: Schema = {
  tagNames: [
    // Markdown constructs (docs/api.md "Article body").
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'tbody',
    'thead',
    'tr',
    'td',
    'th', // thead survives only until table.ts moves its row into tbody
    // HTML islands (docs/api.md "HTML islands").
    'figure',
    'figcaption',
    'div',
    'span',
    'iframe',
    'video',
    'details',
    'summary',
  ],

  attributes: {
    a: [
      'href',
      // Link card only (link-card.ts removes them from ordinary links and rebuilds them on cards).
      ['className', 'dp-link-card'],
      'target',
      'rel',
      'dataDpLinkCard',
    ],
    img: ['src', 'alt', ['className', 'dp-link-card__favicon'], ['width', /^\d{1,4}$/], ['height', /^\d{1,4}$/]],
    // Code blocks: the language after the fence is kept as a highlight hint.
    code: [['className', /^language-[\w+#.-]{1,40}$/]],
    figure: [
      ['className', 'dp-figure', 'dp-gallery'],
      ['dataLayout', 'full', 'mid'], // Layout island: other values are removed.
    ],
    figcaption: [['className', 'dp-figure__caption']],
    div: [
      [
        'className',
        'dp-gallery__items',
        'dp-embed',
        'dp-gif',
        'dp-link-card__body',
        'dp-link-card__title',
        'dp-link-card__desc',
        'dp-link-card__domain',
        'dp-link-card__media',
      ],
      'dataVideo',
      'dataProvider',
      ['dataSource', 'embed'], // Video embed island: data-source must stay `embed`.
      'dataDpEmbed',
      ['dataGif', new RegExp(`^${UUID}$`)],
      // Link card media only; link-card.ts regenerates it from the uuid and drops it elsewhere.
      [
        'style',
        new RegExp(`^\\s*background-image\\s*:\\s*url\\(\\s*(['"]?)/api/media/${UUID}\\1\\s*\\)\\s*;?\\s*$`, 'i'),
      ],
      ['role', 'presentation'],
    ],
    span: [['className', 'dp-link-card__domain-label']],
    iframe: ['src', 'loading', 'allowFullScreen', 'title'],
    video: ['src', 'autoPlay', 'loop', 'muted', 'playsInline'],
  },

  // No `required` defaults: every island attribute is set by its plugin from validated values.
  required: {},

  // Protocols are keyed by property for all tags; relative values pass here and are narrowed by
  // the post-plugins (links: absolute http(s); img/video src: http(s) or /api/media/<uuid>).
  protocols: {
    href: ['http', 'https'],
    src: ['http', 'https'],
  },

  // Elements that break out of their context without the right ancestor are unwrapped.
  ancestors: {
    li: ['ol', 'ul'],
    tbody: ['table'],
    thead: ['table'],
    tr: ['table'],
    td: ['table'],
    th: ['table'],
    summary: ['details'],
    figcaption: ['figure'],
  },

  // Dropped together with their content: raw-text and form elements whose text is never prose
  // (raw-text elements such as `xmp` passed through as markup have been a real bypass in other
  // sanitizers, so every raw-text and form element goes, content included).
  strip: [
    'script',
    'style',
    'textarea',
    'title',
    'noscript',
    'template',
    'xmp',
    'noembed',
    'noframes',
    'select',
    'option',
    'plaintext',
    'object',
    'embed',
    'svg',
    'math',
  ],

  // No id/name attributes at all, so there is nothing to clobber (hast-util-sanitize#31).
  clobber: [],
  clobberPrefix: '',
  allowComments: false,
  allowDoctypes: false,
};
