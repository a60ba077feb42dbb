/**
 * Links: absolute http/https only. A link with any other target (relative, fragment,
 * mailto:, or a scheme the sanitizer already dropped) is unwrapped to its text.
 */
import type { Root } from '../hast';
import { rewriteElements, hasClass } from '../hast';
import { isBuilt } from '../context';
import { absoluteHttpUrl } from '../urls';

export default function rehypeLinks() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'a' || (isBuilt(el) && hasClass(el, 'dp-link-card'))) return el;
      const href = absoluteHttpUrl(el.properties.href);
      if (!href) return el.children;
      el.properties = { href };
      return el;
    });
  };
}
