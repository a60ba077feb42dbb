/**
 * Island "Generic embed" (docs/api.md): `div.dp-embed[data-dp-embed] > iframe` kept only for hosts on the
 * allowlist (embed-allowlist.ts, exact hostname match, forced https); any other iframe is removed,
 * wrapper included. A lone allowed iframe is wrapped in `dp-embed` (the contract allows the service to).
 * An allowed iframe written inside a paragraph (`see <iframe …></iframe> here`) is lifted out of
 * it: the paragraph is split around the embed block (a block cannot stay inside a `<p>`, and
 * deleting it would lose the author's embed). Runs after video-embed.ts, whose iframes are
 * already built.
 */
import type { Element, ElementContent, Root } from '../hast';
import { descendants, element, hasClass, isWhitespaceText, rewriteElements } from '../hast';
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

const isBuiltEmbed = (node: ElementContent): node is Element =>
  node.type === 'element' && node.tagName === 'div' && isBuilt(node) && hasClass(node, 'dp-embed');

const hasContent = (node: ElementContent) =>
  node.type === 'element' || (node.type === 'text' && !isWhitespaceText(node));

/**
 * `el` split around the built embeds among its inline descendants: copies of `el` holding what
 * comes before, between and after, with the embeds between them; undefined when there is none.
 * Copies left without content are dropped.
 */
function splitAroundEmbeds(el: Element): ElementContent[] | undefined {
  const parts: ElementContent[] = [];
  let run: ElementContent[] = [];
  let found = false;
  const flush = () => {
    if (run.some(hasContent)) parts.push({ ...el, properties: { ...el.properties }, children: run });
    run = [];
  };
  const take = (node: ElementContent) => {
    if (isBuiltEmbed(node)) {
      found = true;
      flush();
      parts.push(node);
    } else run.push(node);
  };
  for (const child of el.children) {
    const split = child.type === 'element' && !isBuiltEmbed(child) ? splitAroundEmbeds(child) : undefined;
    if (split) split.forEach(take);
    else take(child);
  }
  if (!found) return undefined;
  flush();
  return parts;
}

/** Whitespace left at the cut of a split paragraph (`see ` / ` here`) is not content. */
function trimEdges(node: ElementContent): ElementContent {
  if (node.type !== 'element' || node.tagName !== 'p') return node;
  const first = node.children[0];
  if (first?.type === 'text') first.value = first.value.replace(/^[ \t\n]+/, '');
  const last = node.children[node.children.length - 1];
  if (last?.type === 'text') last.value = last.value.replace(/[ \t\n]+$/, '');
  return node;
}

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
    rewriteElements(tree, (el) => (el.tagName === 'p' ? (splitAroundEmbeds(el)?.map(trimEdges) ?? el) : el));
  };
}
