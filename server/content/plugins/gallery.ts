/**
 * Island "Gallery" (docs/api.md): `figure.dp-gallery > div.dp-gallery__items > figure.dp-figure…`, plus
 * one optional `figcaption.dp-figure__caption` right after the items container for the whole
 * gallery. An `img` beside the container is not allowed (dropped); a caption inside an item stays
 * that item's caption. Items lose `data-layout` (a layout belongs only on a single-image figure or
 * the root gallery). A gallery without items is dropped.
 */
import type { Element, ElementContent, Root } from '../hast';
import { descendants, element, hasClass, rewriteElements } from '../hast';
import { isBuilt, markBuilt } from '../context';
import { layoutOf } from './figure';

const isItem = (el: Element) => el.tagName === 'figure' && isBuilt(el) && hasClass(el, 'dp-figure');

function rebuildGallery(gallery: Element): Element | undefined {
  const container = descendants(gallery, (el) => el.tagName === 'figure').find(
    (el) => el.tagName === 'div' && hasClass(el, 'dp-gallery__items'),
  );
  if (!container) return undefined;
  const items = descendants(container, (el) => el.tagName === 'figure').filter(isItem);
  if (items.length === 0) return undefined;
  for (const item of items) delete item.properties.dataLayout;

  const children: ElementContent[] = [markBuilt(element('div', { className: ['dp-gallery__items'] }, items))];
  const caption = gallery.children.find(
    (child): child is Element =>
      child.type === 'element' && child.tagName === 'figcaption' && hasClass(child, 'dp-figure__caption'),
  );
  if (caption) {
    caption.properties = { className: ['dp-figure__caption'] };
    children.push(markBuilt(caption));
  }
  const properties: Element['properties'] = { className: ['dp-gallery'] };
  const layout = layoutOf(gallery);
  if (layout) properties.dataLayout = layout;
  return markBuilt(element('figure', properties, children));
}

export default function rehypeGallery() {
  return (tree: Root) => {
    rewriteElements(tree, (el) =>
      el.tagName === 'figure' && !isBuilt(el) && hasClass(el, 'dp-gallery') ? rebuildGallery(el) : el,
    );
  };
}
