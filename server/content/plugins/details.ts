/**
 * Island "Spoiler" (docs/api.md): standard `details` with `summary` and ordinary allowed nodes inside
 * (handlers are gone already: the schema allows no attributes on either). The first direct
 * `summary` is moved to the front; further ones become ordinary content.
 */
import type { Root } from '../hast';
import { rewriteElements } from '../hast';
import { markBuilt } from '../context';

export default function rehypeDetails() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'details') return el;
      const index = el.children.findIndex((child) => child.type === 'element' && child.tagName === 'summary');
      if (index === -1) return el;
      const summary = el.children[index]!;
      const rest = el.children.filter((_, i) => i !== index);
      el.children = [markBuilt(summary as never), ...rest];
      return el;
    });
  };
}
