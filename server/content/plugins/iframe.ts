/**
 * The one way an embed iframe is built: https only; src, loading, allowfullscreen and title from
 * the author, sandbox and referrerpolicy always ours.
 */
import type { Element } from '../hast';
import { element } from '../hast';
import { markBuilt } from '../context';
import { absoluteHttpUrl } from '../urls';

/**
 * An embed's address: an absolute http(s) URL (urls.ts `absoluteHttpUrl`, the one parser of
 * author URLs), upgraded to https — every kept embed is https: no mixed content, no downgrade.
 */
export function httpsUrl(value: unknown): URL | undefined {
  const href = absoluteHttpUrl(value);
  if (!href) return undefined;
  const url = new URL(href);
  url.protocol = 'https:';
  // "https://user:pw@www.youtube.com/…" names an allowed host, but credentials in an embed are
  // never needed and have long served to dress one host up as another: drop the embed.
  if (url.username || url.password) return undefined;
  return url;
}

/**
 * What an embedded player may do: run its scripts on its own origin (players need both), open
 * popups ("watch on YouTube") and go full screen. No allow-top-navigation: an embed can never
 * navigate the reader's tab away from the article, nor submit forms or download.
 */
export const EMBED_SANDBOX = ['allow-scripts', 'allow-same-origin', 'allow-popups', 'allow-presentation'];

/** The provider learns the site an embed is shown on, never the article's address. */
export const EMBED_REFERRER_POLICY = 'strict-origin-when-cross-origin';

export function buildIframe(source: Element, url: URL): Element {
  const properties: Element['properties'] = { src: url.href };
  const loading = source.properties.loading;
  if (loading === 'lazy' || loading === 'eager') properties.loading = loading;
  if (source.properties.allowFullScreen) properties.allowFullScreen = true;
  if (typeof source.properties.title === 'string') properties.title = source.properties.title;
  properties.sandbox = [...EMBED_SANDBOX];
  properties.referrerPolicy = EMBED_REFERRER_POLICY;
  return markBuilt(element('iframe', properties));
}
