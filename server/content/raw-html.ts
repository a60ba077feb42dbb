/**
 * rehype-raw, run only where it changes something. rehype-raw feeds the whole tree to an HTML
 * parser (parse5) so that raw HTML nodes become elements; it was 8 % of a conversion over the
 * corpus, most of whose documents have no raw HTML at all.
 *
 * A tree that remark-rehype built from Markdown alone is already what the HTML parser would
 * build, with two exceptions, both reproduced here so that skipping the parser changes no output
 * (tests/unit/content/raw-html.test.ts compares the two paths on generated documents):
 * - the parser drops a line feed right after `<pre>` (parse5 `skipNextNewLine`, which a start
 *   tag does not clear when the tree is replayed as tokens, so `<pre><code>\n…` loses it too):
 *   a code block opening with a blank line starts one line later;
 * - an `<a>` inside an `<a>` (a footnote call in a link's text) is split by the adoption agency
 *   algorithm; such a tree still goes through the parser.
 * remark-rehype's `html` handler notes raw HTML in the render context (pipeline.ts); any other
 * node type the parser might treat differently is not produced from Markdown.
 */
import { raw } from 'hast-util-raw';
import type { Parents, Root, Text } from './hast';
import { renderContext, type FileLike } from './context';

/**
 * rehype-raw's parse (hast-util-raw), without the file: given one, it gives every node it builds
 * a source position, which nothing reads past the Markdown tree (without-positions.ts).
 */
const parseRaw = (tree: Root): Root => raw(tree) as Root;

/**
 * The text nodes that open a `pre` (in `pre > code`), or null when the tree has an `<a>` inside an `<a>`
 * (which only the parser handles as it would).
 */
function codeOpenings(tree: Root): Text[] | null {
  const openings: Text[] = [];
  let nestedLink = false;
  const walk = (parent: Parents, inLink: boolean) => {
    for (const child of parent.children) {
      if (child.type !== 'element') continue;
      if (child.tagName === 'a' && inLink) nestedLink = true;
      if (child.tagName === 'pre') {
        // Start tags keep the flag: the first text under `<pre><code>` is what it applies to.
        let first = child.children[0];
        while (first?.type === 'element') first = first.children[0];
        if (first?.type === 'text') openings.push(first);
      }
      walk(child, inLink || child.tagName === 'a');
    }
  };
  walk(tree, false);
  return nestedLink ? null : openings;
}

export default function rehypeRawWhenWritten() {
  return (tree: Root, file: FileLike): Root => {
    if (renderContext(file).rawHtml) return parseRaw(tree);
    const openings = codeOpenings(tree);
    if (openings === null) return parseRaw(tree);
    for (const text of openings) if (text.value.startsWith('\n')) text.value = text.value.slice(1);
    return tree;
  };
}
