/**
 * H1 rule: an article has exactly one H1. None -> an H1 made from `title` is put first;
 * exactly one -> left where it stands; several -> the first stays, the others become H2.
 * Runs after the emptiness check, so the inserted title never makes an empty body look full.
 */
import type { Element, Root } from '../hast';
import { element, text } from '../hast';
import { renderContext } from '../context';

export default function rehypeH1() {
  return (tree: Root, file: { data: Record<string, unknown> }) => {
    let seen = false;
    const walk = (children: Root['children'] | Element['children']) => {
      for (const child of children) {
        if (child.type !== 'element') continue;
        if (child.tagName === 'h1') {
          if (seen) child.tagName = 'h2';
          seen = true;
        }
        walk(child.children);
      }
    };
    walk(tree.children);
    if (!seen) {
      const title = renderContext(file).title.replace(/\s+/g, ' ').trim();
      tree.children.unshift(element('h1', {}, title ? [text(title)] : []));
    }
  };
}
