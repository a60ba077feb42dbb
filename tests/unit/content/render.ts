/** Test helpers: render, and parse our own output back into hast to assert on structure. */
import { unified } from 'unified';
import rehypeRaw from 'rehype-raw';
import type { Element, Root, RootContent } from 'hast';
import { renderArticleSync, type RenderInput } from '../../../server/content';

export const render = (markdown: string, extra: Partial<RenderInput> = {}) =>
  renderArticleSync({ markdown, title: 'The title', ...extra });

export const html = (markdown: string, extra: Partial<RenderInput> = {}) => render(markdown, extra).html;

/** Body without the inserted title H1 (most rule tests do not care about it). */
export const body = (markdown: string, extra: Partial<RenderInput> = {}) =>
  html(markdown, extra).replace(/^<h1>The title<\/h1>\n?/, '');

const parser = unified().use(rehypeRaw).freeze();

/** Parse HTML the way a browser would (parse5 via hast-util-raw). */
export function parseHtml(source: string): Root {
  const tree: Root = { type: 'root', children: [{ type: 'raw', value: source } as unknown as RootContent] };
  return parser.runSync(tree) as Root;
}

export function elements(tree: Root | Element): Element[] {
  const out: Element[] = [];
  const walk = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type === 'element') {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(tree);
  return out;
}
