/**
 * Island "Generic embed" (docs/api.md): `div.dp-embed[data-dp-embed] > iframe` kept only for hosts on the
 * allowlist (embed-allowlist.ts, exact hostname match, forced https); any other iframe is removed,
 * wrapper included. A lone allowed iframe is wrapped in `dp-embed` (the contract allows it).
 * Runs after video-embed.ts, whose iframes are already built.
 */
import type { Element, Root } from '../hast';
import { descendants, element, hasClass, rewriteElements } from '../hast';
import { isBuilt, markBuilt } from '../context';
import { GENERIC_EMBED_HOSTS } from '../embed-allowlist';
import { buildIframe, httpsUrl } from './iframe';

const allowedHosts = new Set(GENERIC_EMBED_HOSTS);

function allowedEmbedUrl(iframe: Element): URL | undefined {
  const url = httpsUrl(iframe.properties.src);
  return url && url.port === '' && allowedHosts.has(url.hostname) ? url : undefined;
}

function wrap(iframe: Element, url: URL): Element {
  return markBuilt(element('div', { className: ['dp-embed'], dataDpEmbed: '' }, [buildIframe(iframe, url)]));
}

const isEmbedWrapper = (el: Element) =>
  el.tagName === 'div' && !isBuilt(el) && (hasClass(el, 'dp-embed') || el.properties.dataDpEmbed !== undefined);

export default function rehypeEmbed() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (isEmbedWrapper(el)) {
        const iframe = descendants(el).find((child) => child.tagName === 'iframe');
        const url = iframe && allowedEmbedUrl(iframe);
        return iframe && url ? wrap(iframe, url) : undefined;
      }
      if (el.tagName === 'iframe' && !isBuilt(el)) {
        const url = allowedEmbedUrl(el);
        return url ? wrap(el, url) : undefined;
      }
      return el;
    });
  };
}
