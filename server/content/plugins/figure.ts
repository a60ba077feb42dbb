/**
 * Islands "Captioned image" and "Layout" (docs/api.md): `figure.dp-figure` with exactly one main `img`
 * and optionally one `figcaption.dp-figure__caption` (without that class the caption is not
 * recognized); `data-layout` is `full` or `mid`. A figure without a usable image is dropped, a
 * figure without a recognized class is unwrapped. Galleries are rebuilt afterwards (gallery.ts)
 * from the figures built here.
 */
import type { Element, ElementContent, Root } from '../hast';
import { descendants, element, hasClass, rewriteElements } from '../hast';
import { markBuilt } from '../context';

const LAYOUTS = new Set(['full', 'mid']);

export function layoutOf(el: Element): string | undefined {
  const value = el.properties.dataLayout;
  return typeof value === 'string' && LAYOUTS.has(value) ? value : undefined;
}

const insideCaptionOrFigure = (el: Element) => el.tagName === 'figcaption' || el.tagName === 'figure';

function rebuildFigure(figure: Element): Element | undefined {
  const parts = descendants(figure, insideCaptionOrFigure);
  const image = parts.find((el) => el.tagName === 'img');
  if (!image) return undefined;
  const caption = parts.find((el) => el.tagName === 'figcaption' && hasClass(el, 'dp-figure__caption'));
  const children: ElementContent[] = [image];
  if (caption) {
    caption.properties = { className: ['dp-figure__caption'] };
    children.push(markBuilt(caption));
  }
  const properties: Element['properties'] = { className: ['dp-figure'] };
  const layout = layoutOf(figure);
  if (layout) properties.dataLayout = layout;
  return markBuilt(element('figure', properties, children));
}

export default function rehypeFigure() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'figure' || hasClass(el, 'dp-gallery')) return el;
      return hasClass(el, 'dp-figure') ? rebuildFigure(el) : el.children;
    });
  };
}
