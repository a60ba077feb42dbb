import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppParts } from '../runtime/parts';
import { articlePageOf, PUBLIC_PAGE_CSP, renderArticlePage, renderNotFoundPage } from '../reader-pages/article-page';
import { findPublishedArticle } from '../services/posts/public-articles';
import { PUBLIC_ID_PATTERN } from '../services/posts/public-id';
import { ifNoneMatchMatches, strongEtag } from '../foundation/entity-tags';
import { env } from '../foundation/env';
import { cacheTagHeaders } from './cache-tags';

/**
 * `/<slug>-<public_id>`, served by the Node server: readers hit these pages most, and they
 * need neither React nor a router. One query per request; the entity tag is a hash of the
 * published snapshot (and byline), so a conditional request is answered 304 before anything
 * is rendered.
 *
 * Caching: browsers revalidate every time (max-age=0); a shared cache may serve a page for 60 s,
 * then for 30 s more while it revalidates in the background (so a change shows within 90 s), and
 * for up to an hour past the 60 s only while this server answers 5xx or not at all (an unpublished
 * article answers 404, which ends the stale copy). The service purges the caches in
 * CACHE_PURGE_URLS itself after each change (server/runtime/cache-purge.ts), so a withdrawn article goes
 * at once; `Surrogate-Key` and `Cache-Tag` name the article for CDNs that purge by tag.
 */
const PUBLIC_CACHE_CONTROL = 'public, max-age=0, s-maxage=60, stale-while-revalidate=30, stale-if-error=3600';
const MISSING_CACHE_CONTROL = 'public, max-age=0, s-maxage=10';
/**
 * Part of the entity tag: bumped when the page's markup changes for every article (as when the
 * reader beacons were added), so browsers and caches holding the old page get the new one
 * instead of a 304.
 */
const PAGE_MARKUP_VERSION = 'figure-media-centred-3';

/**
 * Redirects to the canonical path (another spelling of it, a stale slug) are kept by shared
 * caches for seconds only: a copy under another key than the canonical path is one a purge of
 * that path cannot reach, so it must go by itself, and soon.
 */
const REDIRECT_CACHE_CONTROL = 'public, max-age=0, s-maxage=10';

/**
 * The article segment `<slug>-<public_id>` that `pathname` names, percent-escapes decoded and
 * the public id's case folded, or null when it cannot name one. Whether it is the canonical
 * spelling is decided once the article is found: anything but the exact canonical path
 * redirects there.
 */
export function canonicalSegment(pathname: string): string | null {
  if (pathname.length < 13 || pathname.indexOf('/', 1) !== -1) return null;
  let segment: string;
  try {
    segment = decodeURIComponent(pathname.slice(1));
  } catch {
    return null;
  }
  const dash = segment.lastIndexOf('-');
  if (dash <= 0 || segment.includes('/')) return null;
  const publicId = segment.slice(dash + 1).toLowerCase();
  return PUBLIC_ID_PATTERN.test(publicId) ? segment.slice(0, dash + 1) + publicId : null;
}

export async function servePublicPage(
  parts: Pick<AppParts, 'db'>,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  segment: string,
): Promise<void> {
  const head = req.method === 'HEAD';
  const found = await findPublishedArticle(parts.db, segment);
  res.setHeader('content-security-policy', PUBLIC_PAGE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'strict-origin-when-cross-origin');
  if (found.kind !== 'missing') {
    for (const [name, value] of Object.entries(cacheTagHeaders(`article-${publicIdOf(found.path)}`)))
      res.setHeader(name, value);
  }
  // A stale slug, or another spelling of the path (percent-escapes, case): the canonical path.
  if (found.kind === 'moved' || (found.kind === 'article' && pathname !== found.path)) {
    res.statusCode = 308;
    res.setHeader('location', found.path);
    res.setHeader('cache-control', REDIRECT_CACHE_CONTROL);
    res.end();
    return;
  }
  if (found.kind === 'missing') {
    send(res, 404, MISSING_CACHE_CONTROL, head ? null : renderNotFoundPage());
    return;
  }
  // From configuration only: a request header must never reach a page that caches share.
  const origin = env.PUBLIC_ORIGIN ?? null;
  const etag = strongEtag(
    PAGE_MARKUP_VERSION,
    '\n',
    found.versionJson,
    '\n',
    found.publishedAt ?? '',
    '\n',
    found.handle,
    '\n',
    origin ?? '',
  );
  res.setHeader('etag', etag);
  res.setHeader('cache-control', PUBLIC_CACHE_CONTROL);
  if (ifNoneMatchMatches(req.headers['if-none-match'], etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const html = renderArticlePage(articlePageOf(found, origin));
  send(res, 200, PUBLIC_CACHE_CONTROL, head ? null : html, Buffer.byteLength(html));
}

const publicIdOf = (path: string) => path.slice(path.lastIndexOf('-') + 1);

function send(res: ServerResponse, status: number, cacheControl: string, body: string | null, length?: number): void {
  res.statusCode = status;
  res.setHeader('cache-control', cacheControl);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  if (body === null) {
    if (length !== undefined) res.setHeader('content-length', length);
    res.end();
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
