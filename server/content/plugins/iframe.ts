/** The one way an embed iframe is built: https only, attributes limited to those SPEC shows. */
import type { Element } from '../hast';
import { element } from '../hast';
import { markBuilt } from '../context';

export function httpsUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  const candidate = value.startsWith('//') ? `https:${value}` : value;
  if (!/^https?:\/\//i.test(candidate)) return undefined;
  try {
    const url = new URL(candidate);
    url.protocol = 'https:'; // NOTES (e): force https on every kept embed
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
