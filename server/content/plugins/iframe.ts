/** The one way an embed iframe is built: https only; src, loading, allowfullscreen and title only. */
import type { Element } from '../hast';
import { element } from '../hast';
import { markBuilt } from '../context';

export function httpsUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  const candidate = value.startsWith('//') ? `https:${value}` : value;
  if (!/^https?:\/\//i.test(candidate)) return undefined;
  try {
    const url = new URL(candidate);
    url.protocol = 'https:'; // every kept embed is https: no mixed content, no downgrade
    return url;
  } catch {
    return undefined;
  }
}

export function buildIframe(source: Element, url: URL): Element {
  const properties: Element['properties'] = { src: url.href };
  const loading = source.properties.loading;
  if (loading === 'lazy' || loading === 'eager') properties.loading = loading;
  if (source.properties.allowFullScreen) properties.allowFullScreen = true;
  if (typeof source.properties.title === 'string') properties.title = source.properties.title;
  return markBuilt(element('iframe', properties));
}
