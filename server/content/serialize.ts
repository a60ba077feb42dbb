/**
 * Writes the final tree so that the HTML, read back as Markdown, is one raw HTML block per
 * top-level element sequence and parses to the same tree (round trip: clients may send our
 * `html` back as `markdown`):
 * - one top-level element per line, no blank line anywhere: CommonMark ends an HTML block
 *   (types 6/7) at a blank line, after which the rest would be read as Markdown. Newlines that
 *   would leave a line blank (inside `<pre>`, text, attributes) are written as `&#10;`, which
 *   the HTML parser turns back into the same newline;
 * - runs of more than 200 `*` or `_` are written as references (see prescan.ts);
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
  let html = stringifier.stringify({ type: 'root', children });
  if (html.includes('\n')) html = html.replace(/\n(?=[ \t]*\n)/g, '&#10;');
  // Escaped delimiters (`\*` x 300) come out as a literal run the pre-scan would refuse when the
  // output is sent back; written as references they mean the same to the HTML parser.
  return html.replace(/\*{201,}|_{201,}/g, (run) => (run[0] === '*' ? '&#x2A;' : '&#x5F;').repeat(run.length));
}
