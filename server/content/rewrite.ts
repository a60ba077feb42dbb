/**
 * Rehosting without a second conversion: substitutes image sources in the pipeline's OUTPUT html,
 * exactly as `renderArticleSync({ ..., rehosted })` would have (plugins/images.ts
 * `resolveImageSrc`), and writes the tree with the pipeline's own serializer, so that
 *
 *   rewriteImageSourcesSync(render(md).html, map) === render(md, { rehosted: map }).html
 *
 * (tests/unit/content/rewrite.test.ts) for maps keyed as the conversion reports its
 * `externalImages`. The output holds only canonical image URLs (urls.ts `absoluteHttpUrl`: the
 * pipeline has already turned `//host/x` into `https://host/x`), and the pipeline looks a source
 * up by the author's spelling, then by that canonical form; the author's spelling is gone from
 * the html, so here the lookup is by the canonical form only. A key spelled differently from the
 * reported URL (e.g. protocol-relative) can match in a conversion but not here: use the
 * `externalImages` strings as keys, as the service does. Link-card favicons are rebuilt local images the pipeline never rehosts; they are left alone.
 * Parsing is HTML only (rehype-raw's parse5), linear in the size of the html.
 */
import { unified } from 'unified';
import rehypeRaw from 'rehype-raw';
import type { Element, ElementContent, Root, RootContent } from './hast';
import { hasClass, isWhitespaceText } from './hast';
import { resolveImageSrc } from './plugins/images';
import { serializeTree } from './serialize';
import { absoluteHttpUrl, localMediaPath, localMediaUuid } from './urls';

const parser = unified().use(rehypeRaw).freeze();

function lookupTable(rehosted: Record<string, string>): Map<string, string> {
  // Only absolute http(s) keys in canonical form can equal a source in the output.
  return new Map(Object.entries(rehosted).filter(([key]) => absoluteHttpUrl(key) === key));
}

function parseOutput(html: string): Root {
  const tree: Root = { type: 'root', children: [{ type: 'raw', value: html } as unknown as RootContent] };
  const parsed = parser.runSync(tree) as Root;
  // Undo what serializeTree adds around the tree: the newline between top-level elements and the
  // newline that opens a top-level link card.
  parsed.children = parsed.children.filter((node) => !isWhitespaceText(node));
  for (const node of parsed.children) {
    if (node.type !== 'element' || node.tagName !== 'a' || !hasClass(node, 'dp-link-card')) continue;
    const first = node.children[0];
    if (first?.type === 'text' && first.value.startsWith('\n')) {
      if (first.value === '\n') node.children.shift();
      else first.value = first.value.slice(1);
    }
  }
  return parsed;
}

export function rewriteImageSourcesSync(html: string, rehosted: Record<string, string>): string {
  if (typeof html !== 'string') throw new TypeError('rewriteImageSources: html must be a string');
  const table = lookupTable(rehosted ?? {});
  if (table.size === 0 || !html.includes('<img')) return html;
  const tree = parseOutput(html);
  let changed = false;
  const walk = (children: (RootContent | ElementContent)[]) => {
    for (const node of children) {
      if (node.type !== 'element') continue;
      if (node.tagName === 'img' && !hasClass(node, 'dp-link-card__favicon')) {
        const img = node as Element;
        const src = resolveImageSrc(img.properties.src, table);
        if (src !== undefined && src !== img.properties.src) {
          img.properties.src = src;
          changed = true;
        }
      }
      walk(node.children);
    }
  };
  walk(tree.children);
  return changed ? serializeTree(tree) : html;
}

const MEDIA_STYLE_URL = /url\(\s*['"]?(\/api\/media\/[0-9a-f-]{36})['"]?\s*\)/i;

/**
 * The uuids of the stored files an output html shows: image and video sources, GIF islands and
 * link-card media, in document order without repeats. A write may show only files of its own
 * account, so the service checks these before storing the html. Text that merely mentions a
 * media path (a code sample) is not a reference.
 */
export function storedMediaReferences(html: string): string[] {
  if (!html.includes('/api/media/')) return [];
  const found = new Set<string>();
  const walk = (children: (RootContent | ElementContent)[]) => {
    for (const node of children) {
      if (node.type !== 'element') continue;
      const { src, dataGif, style } = node.properties;
      const candidates = [
        node.tagName === 'img' || node.tagName === 'video' ? src : undefined,
        typeof dataGif === 'string' ? localMediaPath(dataGif) : undefined,
        typeof style === 'string' ? MEDIA_STYLE_URL.exec(style)?.[1] : undefined,
      ];
      for (const candidate of candidates) {
        const uuid = localMediaUuid(candidate);
        if (uuid) found.add(uuid);
      }
      walk(node.children);
    }
  };
  walk(parseOutput(html).children);
  return [...found];
}
