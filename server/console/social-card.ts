import { renderArticlePage, type ArticlePage } from '../reader-pages/article-page';

/**
 * "When shared": the card link previews build from an article's public page. Nothing here is
 * derived a second time: the page is rendered by the public page's own renderer
 * (renderArticlePage, the one server/http/public-page.ts serves), and the card's fields are read
 * back from the Open Graph tags in that document's head, so the card carries exactly what a
 * network's crawler reads. Pure: no Next, no React, no database (social-card-source.ts reads).
 */

/** Whether the card is the page readers get now, or the saved working version as it would be published. */
export type SocialCardState = 'published' | 'when_published';

export interface SocialCardFields {
  state: SocialCardState;
  /** og:title, whole (the card truncates it for display). */
  title: string;
  /** og:description, whole: the subtitle, else the opening paragraph's excerpt. */
  description: string;
  /**
   * og:image with og:image:width / og:image:height, or null when the page has no og:image.
   * `src` is its path (`/api/media/…`), for showing it in the console: the console's CSP loads
   * images from its own origin only, and it may be served on another host than the public pages.
   */
  image: { url: string; src: string; width: number | null; height: number | null } | null;
  /** og:url, or null (no PUBLIC_ORIGIN: the page has no absolute address). */
  url: string | null;
  /** og:site_name when the page has one (it has none today), else null. */
  siteName: string | null;
  /** The host networks print on the card: og:url's host, or null without og:url. */
  domain: string | null;
  /** twitter:card: `summary_large_image` when the article has a cover (even when og:image is left out). */
  twitterCard: string | null;
}

/** How many characters networks show before cutting with an ellipsis. */
export const CARD_TITLE_MAX = 70;
export const CARD_DESCRIPTION_MAX = 160;

/** Longest head read, and longest tag content taken: the page's head is far shorter than either. */
const HEAD_LIMIT = 256 * 1024;
const META_TAG = /<meta (?:property|name)="([a-z:_]{1,40})" content="([^"<>]{0,8000})">/g;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** Reverses article-document.ts's escapeHtml (the only escaping the page's meta tags get). */
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e]!);
}

/** Every `<meta property|name="…" content="…">` of a document's head, first one of each name kept. */
export function metaTagsOf(document: string): Map<string, string> {
  const end = document.indexOf('</head>');
  const head = document.slice(0, end >= 0 ? Math.min(end, HEAD_LIMIT) : HEAD_LIMIT);
  const tags = new Map<string, string>();
  for (const m of head.matchAll(META_TAG)) if (!tags.has(m[1]!)) tags.set(m[1]!, unescapeHtml(m[2]!));
  return tags;
}

function dimension(value: string | undefined): number | null {
  return value !== undefined && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : null;
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** The card a public page's document makes, read from its og: (and twitter:card) tags. */
export function socialCardOfDocument(document: string, state: SocialCardState): SocialCardFields {
  const tags = metaTagsOf(document);
  const imageUrl = tags.get('og:image') ?? null;
  const url = tags.get('og:url') ?? null;
  return {
    state,
    title: tags.get('og:title') ?? '',
    description: tags.get('og:description') ?? '',
    image: imageUrl
      ? {
          url: imageUrl,
          src: pathOf(imageUrl),
          width: dimension(tags.get('og:image:width')),
          height: dimension(tags.get('og:image:height')),
        }
      : null,
    url,
    siteName: tags.get('og:site_name') ?? null,
    domain: hostOf(url),
    twitterCard: tags.get('twitter:card') ?? null,
  };
}

/** The card of `page`, rendered exactly as the public page renders it. */
export function socialCardOfPage(page: ArticlePage, state: SocialCardState): SocialCardFields {
  return socialCardOfDocument(renderArticlePage(page), state);
}

/**
 * `text` cut as link previews cut it: at most `max` characters (code points, so an emoji is
 * never split), the last one an ellipsis, trailing spaces before it dropped.
 */
export function truncateForCard(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`;
}
