/**
 * A `<video>` with an external file `src` loses its `src` (no local or external video files:
 * video appears only as an embed or a stored GIF). Children (`source`, fallback text) are dropped.
 */
import type { Element, Root } from '../hast';
import { rewriteElements } from '../hast';
import { isBuilt } from '../context';
import { localMediaPath, localMediaUuid } from '../urls';

const FLAGS = ['autoPlay', 'loop', 'muted', 'playsInline'] as const;

export default function rehypeVideo() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'video' || isBuilt(el)) return el;
      const properties: Element['properties'] = {};
      const uuid = localMediaUuid(el.properties.src);
      if (uuid) properties.src = localMediaPath(uuid);
      for (const flag of FLAGS) if (el.properties[flag]) properties[flag] = true;
      el.properties = properties;
      el.children = [];
      return el;
    });
  };
}
