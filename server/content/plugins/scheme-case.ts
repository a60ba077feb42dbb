/**
 * A URL's scheme is case-insensitive (RFC 3986 §3.1; browsers read `HTTP://x` as `http://x`),
 * but the sanitizer compares it with its list (`protocols` in sanitize-schema.ts) as written:
 * `![x](HTTP://example.com/a.png)` lost its `src` and the image vanished without a word, where
 * `http://` is rehosted. So the scheme of every property the sanitizer checks is folded to lower
 * case first, and the author's spelling is kept (`authored`), so a failed rehost is reported as
 * written. Only the scheme changes: a `javascript:` in any case is still refused by the sanitizer.
 */
import type { Element, Root } from '../hast';
import { renderContext } from '../context';
import { sanitizeSchema } from '../sanitize-schema';

/** The properties whose scheme the sanitizer checks (one list: the schema's). */
const CHECKED = Object.keys(sanitizeSchema.protocols ?? {});

/** A scheme with an upper-case letter, before the first `:` (and no `/`, `?` or `#` before it). */
const SCHEME_WITH_CAPITALS = /^(?=[^:/?#]*[A-Z])([A-Za-z][A-Za-z0-9+.-]*):/;

export default function rehypeSchemeCase() {
  return (tree: Root, file: { data: Record<string, unknown> }) => {
    const { authored } = renderContext(file);
    const walk = (children: Root['children'] | Element['children']) => {
      for (const child of children) {
        if (child.type !== 'element') continue;
        for (const name of CHECKED) {
          const value = child.properties[name];
          if (typeof value !== 'string') continue;
          const match = SCHEME_WITH_CAPITALS.exec(value);
          if (!match) continue;
          const folded = `${match[1]!.toLowerCase()}:${value.slice(match[0].length)}`;
          child.properties[name] = folded;
          const written = authored.get(value) ?? [value];
          const known = authored.get(folded);
          if (!known) authored.set(folded, [...written]);
          else for (const spelling of written) if (!known.includes(spelling)) known.push(spelling);
        }
        walk(child.children);
      }
    };
    walk(tree.children);
  };
}
