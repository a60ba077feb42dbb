/**
 * Writes the final tree so that the HTML, read back as Markdown, is one raw HTML block per
 * top-level element sequence and parses to the same tree (round trip, issue 3):
 * - one top-level element per line, no blank line anywhere: CommonMark ends an HTML block
 *   (types 6/7) at a blank line, after which the rest would be read as Markdown. Newlines that
 *   would leave a line blank (inside `<pre>`, text, attributes) are written as `&#10;`, which
 *   the HTML parser turns back into the same newline;
 * - a top-level link card opens with its `<a …>` tag alone on the first line, so CommonMark
 *   starts an HTML block (type 7) instead of a paragraph with inline Markdown.
 */
import { unified } from 'unified';
import rehypeStringify from 'rehype-stringify';
import type { ElementContent, Root } from './hast';
import { hasClass, text } from './hast';

const stringifier = unified().use(rehypeStringify).freeze();

export function serializeTree(tree: Root): string {
  const children: ElementContent[] = [];
  for (const node of tree.children as ElementContent[]) {
    if (children.length > 0) children.push(text('\n'));
    if (node.type === 'element' && node.tagName === 'a' && hasClass(node, 'dp-link-card')) {
      node.children.unshift(text('\n'));
    }
    children.push(node);
  }
  const html = stringifier.stringify({ type: 'root', children });
  return html.includes('\n') ? html.replace(/\n(?=[ \t]*\n)/g, '&#10;') : html;
}
