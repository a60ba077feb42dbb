/**
 * Addresses of this service outside its stored files (a reader beacon, a page), wherever an
 * element would load one: `src` (an `img`, a link card's favicon, a `<source>`, a `<video>`…),
 * `srcset` (of an `img` or a `<picture><source>`), `poster`, the legacy `background`, `lowsrc`
 * and `dynsrc`, an `<object>`'s `data`, the `href` of an SVG image, and every `url()` or string
 * of a `style` (a link card's media). Each is removed here and reported in `selfImages` as the
 * author wrote it: an `img` whose `src` is one goes with its element, any other such attribute
 * alone. Whether an address is one is decided by urls.ts `pointsAtServiceOutsideMedia`, the
 * rule every removal of this kind follows.
 *
 * Runs before the sanitizer (pipeline.ts): the sanitizer drops most of these attributes, and a
 * `src` with an upper-case scheme (`HTTP://…`), without saying so, so a planted beacon would be
 * removed with no warning. This step only deletes: nothing it leaves is trusted before the
 * sanitizer has run.
 */
import type { Element, Parents, Root, RootContent } from '../hast';
import { noteSelfImage, renderContext, type RenderContext } from '../context';
import { localMediaUuid, pointsAtServiceOutsideMedia } from '../urls';
import { resolveImageSrc } from './images';

/** Properties (hast names) holding one address the element loads. */
const ADDRESS_PROPERTIES = ['src', 'poster', 'background', 'lowSrc', 'dynsrc', 'data'];
/** Properties holding a list of image candidates (`url descriptor, url descriptor…`). */
const CANDIDATE_LIST_PROPERTIES = ['srcSet', 'imageSrcSet'];
/** SVG elements whose `href` is an image they load. */
const SVG_IMAGE_TAGS = new Set(['image', 'feImage', 'use']);

const SRCSET_SPACE = /[\t\n\f\r ]/;

/** The URLs of a `srcset` value, split as the HTML standard's srcset parser splits them. */
function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (SRCSET_SPACE.test(value[i]!) || value[i] === ',')) i++;
    const start = i;
    while (i < value.length && !SRCSET_SPACE.test(value[i]!)) i++;
    let url = value.slice(start, i);
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      // Descriptors, up to the next comma outside parentheses.
      let depth = 0;
      for (; i < value.length; i++) {
        const char = value[i];
        if (char === '(') depth++;
        else if (char === ')') depth = Math.max(0, depth - 1);
        else if (char === ',' && depth === 0) break;
      }
    }
    if (url) urls.push(url);
  }
  return urls;
}

/** CSS escapes (`\72`, `\r`) resolved, so `u\72l(…)` and `\2f api` read as a browser reads them. */
function cssUnescaped(css: string): string {
  return css.replace(
    /\\(?:([0-9a-f]{1,6})[\t\n\f\r ]?|([^\n\r\f0-9a-f]))/gi,
    (_escape, hex?: string, char?: string) => {
      if (char !== undefined) return char;
      const code = parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}

/** Every `url(…)` and every string of a style value (`image-set("…")` takes strings as URLs). */
function styleUrls(style: string): string[] {
  const css = cssUnescaped(style.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ''));
  const urls: string[] = [];
  for (const match of css.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)|"([^"]*)"|'([^']*)'/gi)) {
    const url = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? '').trim();
    if (url) urls.push(url);
  }
  return urls;
}

/** The addresses a property of `el` loads, as they stand in the tree. */
function addressesOf(el: Element, property: string, raw: unknown): string[] {
  // A list-valued property (a comma-separated `srcset` in some schemas) reads as its text.
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (typeof value !== 'string') return [];
  if (ADDRESS_PROPERTIES.includes(property)) return [value];
  if (CANDIDATE_LIST_PROPERTIES.includes(property)) return srcsetUrls(value);
  if (property === 'style') return styleUrls(value);
  if ((property === 'href' || property === 'xLinkHref') && SVG_IMAGE_TAGS.has(el.tagName)) return [value];
  return [];
}

/**
 * Removes from `el` the properties that load an address of this service and reports them;
 * false when `el` itself goes (an `img` whose `src` is one).
 */
function keepElement(el: Element, context: RenderContext): boolean {
  for (const [property, value] of Object.entries(el.properties)) {
    const found = addressesOf(el, property, value).filter((url) =>
      pointsAtServiceOutsideMedia(url, context.selfOrigins),
    );
    if (found.length === 0) continue;
    if (el.tagName === 'img' && property === 'src') {
      // A rehosted copy stands in for what the author wrote (images.ts): that one is kept.
      if (localMediaUuid(resolveImageSrc(value, context.rehosted))) continue;
      noteSelfImage(context, context.authored.get(value as string) ?? found);
      return false;
    }
    noteSelfImage(context, found);
    delete el.properties[property];
  }
  return true;
}

function walk(parent: Parents, context: RenderContext): void {
  let kept: RootContent[] | undefined;
  const children = parent.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.type === 'element') {
      if (!keepElement(child, context)) {
        kept ??= children.slice(0, i);
        continue;
      }
      walk(child, context);
    }
    kept?.push(child);
  }
  if (kept) parent.children = kept as typeof parent.children;
}

export default function rehypeSelfAddresses() {
  return (tree: Root, file: { data: Record<string, unknown> }) => {
    const context = renderContext(file);
    // Markdown alone loads addresses through its images only: none, nothing to look at.
    if (!context.rawHtml && context.authored.size === 0) return;
    walk(tree, context);
  };
}
