import type { PostVersion } from '../data/posts/rows';
import { GENERIC_EMBED_HOSTS } from '../content/embed-allowlist';
import { parseVersion, type PublishedLookup } from '../services/posts/public-articles';
import { BEACON_CSS, readerBeacons } from './reader-beacons';
import { articleMarkup, escapeHtml, excerpt, READER_CSS, READER_STYLESHEET } from './article-document';

/**
 * The public page of a published article: one self-contained HTML document, no script at
 * all (reading needs none), the same markup and stylesheet (READER_STYLESHEET) as the console's
 * preview frames (article-document.ts), and the metadata link previews read (description, Open Graph).
 */
export interface ArticlePage {
  version: PostVersion;
  /** Canonical path, `/<slug>-<public_id>`. */
  path: string;
  /** The article's public id, named by its reader beacons. */
  publicId: string;
  /** ISO 8601, or null. */
  publishedAt: string | null;
  handle: string;
  /**
   * The configured public origin (PUBLIC_ORIGIN), for absolute canonical, og:url and og:image
   * URLs; null: the canonical link is the path, og:url and og:image are left out (they must be absolute).
   */
  origin: string | null;
}

/**
 * The page of an article the public lookup found (findPublishedArticle), at `origin`: what the
 * public page renders, and what the console's "When shared" card is made of, so the card is the page's.
 */
export function articlePageOf(
  found: Extract<PublishedLookup, { kind: 'article' }>,
  origin: string | null,
): ArticlePage {
  return {
    version: parseVersion(found.versionJson),
    path: found.path,
    publicId: found.publicId,
    publishedAt: found.publishedAt,
    handle: found.handle,
    origin,
  };
}

/**
 * Public pages run no script, may only be framed by nobody, and load media from this origin
 * and players from the embed allowlist. `style-src 'unsafe-inline'` covers the page's own
 * <style> and the link cards' regenerated `background-image` attributes.
 */
export const PUBLIC_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "media-src 'self'",
  `frame-src ${[...new Set(GENERIC_EMBED_HOSTS)].map((h) => `https://${h}`).join(' ')}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DATE = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

export function renderArticlePage(page: ArticlePage): string {
  const { version, origin } = page;
  const url = `${origin ?? ''}${page.path}`;
  const description = version.subtitle ?? excerpt(version.html);
  const meta = [
    `<meta name="description" content="${escapeHtml(description)}">`,
    `<link rel="canonical" href="${escapeHtml(url)}">`,
    `<meta property="og:type" content="article">`,
    `<meta property="og:title" content="${escapeHtml(version.title)}">`,
    `<meta property="og:description" content="${escapeHtml(description)}">`,
    origin ? `<meta property="og:url" content="${escapeHtml(url)}">` : '',
    page.publishedAt ? `<meta property="article:published_time" content="${page.publishedAt}">` : '',
    ...version.tags.map((t) => `<meta property="article:tag" content="${escapeHtml(t.name)}">`),
    version.cover && origin
      ? `<meta property="og:image" content="${escapeHtml(origin + version.cover.url)}"><meta property="og:image:width" content="${version.cover.width}"><meta property="og:image:height" content="${version.cover.height}">`
      : '',
    `<meta name="twitter:card" content="${version.cover ? 'summary_large_image' : 'summary'}">`,
    `<meta name="twitter:title" content="${escapeHtml(version.title)}">`,
    `<meta name="twitter:description" content="${escapeHtml(description)}">`,
  ].join('');
  const date = page.publishedAt
    ? ` · <time datetime="${page.publishedAt}">${DATE.format(new Date(page.publishedAt))}</time>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(version.title)}</title>${meta}<style>${READER_STYLESHEET}</style><style>${BEACON_CSS}</style></head>
<body><main class="reader"><article class="dp-article reader__counted">${articleMarkup(version)}${readerBeacons(page.publicId)}</article>
<p class="reader__byline">@${escapeHtml(page.handle)}${date}</p></main></body></html>`;
}

export function renderNotFoundPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found</title><style>${READER_CSS}</style></head>
<body><main class="reader"><p class="reader__byline">This article does not exist or is no longer published.</p></main></body></html>`;
}
