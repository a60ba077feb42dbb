/**
 * A document empty after conversion fails with 400. "Empty" means no
 * visible text and no image, video, embed or rule; checked before the title H1 is inserted.
 * A `<video>` counts only with a source: one whose external `src` was removed (sanitization
 * rule 2) plays nothing, so a body of only that is empty.
 */
import type { Element, Root } from '../hast';
import { ContentRejectedError, REJECT } from '../errors';

const VISIBLE_WITHOUT_TEXT = new Set(['img', 'video', 'iframe', 'hr']);

function hasContent(children: Root['children'] | Element['children']): boolean {
  for (const child of children) {
    if (child.type === 'text' && /\S/.test(child.value)) return true;
    if (child.type !== 'element') continue;
    if (child.tagName === 'video' && child.properties.src === undefined) continue;
    if (VISIBLE_WITHOUT_TEXT.has(child.tagName) || hasContent(child.children)) return true;
  }
  return false;
}

export default function rehypeNotEmpty() {
  return (tree: Root) => {
    if (!hasContent(tree.children)) throw new ContentRejectedError(REJECT.empty);
  };
}
