import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Element, Root } from 'hast';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

/**
 * docs/api.md, the repository's guide to the REST contract, as HTML for the console: one
 * text serves readers of the repository and maintainers in the console. The file is ours,
 * but it still goes through the sanitizer (raw HTML in it is dropped). Headings keep plain
 * ids, so the guide's own `#basics` links work on the page.
 */
const GUIDE_PATH = path.join(process.cwd(), 'docs', 'api.md');

const schema = {
  ...defaultSchema,
  clobber: [],
  attributes: { ...defaultSchema.attributes, h2: ['id'], h3: ['id'], h4: ['id'] },
};

/** GitHub's heading anchors for the simple headings the guide uses. */
function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

function textOf(node: Element | Root): string {
  let out = '';
  for (const child of node.children) {
    if (child.type === 'text') out += child.value;
    else if (child.type === 'element') out += textOf(child);
  }
  return out;
}

function headingIds() {
  return (tree: Root) => {
    for (const node of tree.children) {
      if (node.type === 'element' && /^h[2-4]$/.test(node.tagName)) node.properties.id = headingId(textOf(node));
    }
  };
}

let cached: string | undefined;

export function apiGuideHtml(): string {
  cached ??= String(
    unified()
      .use(remarkParse)
      .use(remarkGfm)
      .use(remarkRehype)
      .use(headingIds)
      .use(rehypeSanitize, schema)
      .use(rehypeStringify)
      .processSync(readFileSync(GUIDE_PATH, 'utf8')),
  );
  return cached;
}
