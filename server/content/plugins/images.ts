/**
 * Images: `![alt](url)` keeps `alt`; an external http(s) `src` is rehosted at write time
 * (the caller passes the URL -> `/api/media/<uuid>` map) and otherwise reported in
 * `externalImages`. Any other `src` (relative path, no src) cannot be served: the image is dropped.
 * So is an address of this service outside its stored files (a reader beacon, a page): never
 * downloaded, never kept, whether or not a rehost would have worked, and reported in
 * `selfImages` (self-addresses.ts removes them before the sanitizer; the same rule is held here).
 */
import type { Element, Root } from '../hast';
import { rewriteElements } from '../hast';
import { isBuilt, noteSelfImage, renderContext, type RenderContext } from '../context';
import { absoluteHttpUrl, localMediaPath, localMediaUuid, pointsAtServiceOutsideMedia } from '../urls';

export function resolveImageSrc(raw: unknown, rehosted: RenderContext['rehosted']): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const external = absoluteHttpUrl(raw);
  const substitute = rehosted.get(raw) ?? (external ? rehosted.get(external) : undefined);
  const local = localMediaUuid(substitute ?? raw);
  if (local) return localMediaPath(local);
  return external;
}

/** Relative sources are this service's by definition; reported only when they name a reader beacon. */
function namesThisService(raw: unknown, src: string | undefined): raw is string {
  if (typeof raw !== 'string') return false;
  return src !== undefined || pointsAtServiceOutsideMedia(raw, []); // absolute: found pointing here by the caller
}

export default function rehypeImages() {
  return (tree: Root, file: { data: Record<string, unknown> }) => {
    const context = renderContext(file);
    const { rehosted, authored, writtenAs, selfOrigins } = context;
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'img' || isBuilt(el)) return el; // link-card favicons are already rebuilt
      const raw = el.properties.src;
      const src = resolveImageSrc(raw, rehosted);
      if (!src || (!localMediaUuid(src) && pointsAtServiceOutsideMedia(src, selfOrigins))) {
        // Normally already gone (self-addresses.ts); this is the rule after rehost substitution.
        if (namesThisService(raw, src)) noteSelfImage(context, authored.get(raw) ?? [raw]);
        return undefined;
      }
      if (typeof raw === 'string' && !localMediaUuid(src)) {
        const spellings = writtenAs.get(src) ?? [];
        for (const spelling of authored.get(raw) ?? [raw]) if (!spellings.includes(spelling)) spellings.push(spelling);
        writtenAs.set(src, spellings);
      }
      const properties: Element['properties'] = { src };
      if (typeof el.properties.alt === 'string') properties.alt = el.properties.alt;
      if (el.properties.width !== undefined) properties.width = el.properties.width;
      if (el.properties.height !== undefined) properties.height = el.properties.height;
      el.properties = properties;
      return el;
    });
  };
}

/** External http(s) body images in document order, deduped (favicons are local by construction). */
export function collectExternalImages(tree: Root): string[] {
  const found = new Set<string>();
  const walk = (children: Root['children'] | Element['children']) => {
    for (const child of children) {
      if (child.type !== 'element') continue;
      if (
        child.tagName === 'img' &&
        typeof child.properties.src === 'string' &&
        /^https?:/.test(child.properties.src)
      ) {
        found.add(child.properties.src);
      }
      walk(child.children);
    }
  };
  walk(tree.children);
  return [...found];
}
