/**
 * Round trip: the returned `html`, sent back as `markdown`, must convert to the same
 * `html`. The HTML parser restructures some trees when it reads them back (a block start tag
 * closes an open `<p>`, an `<a>` inside an `<a>` triggers the adoption agency, an `<li>` closes
 * the enclosing `<li>`, `<pre>` drops its first newline, text inside a table is foster-parented).
 * Sanitizing can create such trees by unwrapping unknown elements, so this pass rewrites the tree
 * into one the parser reproduces exactly:
 * - nothing block-level inside a `<p>` (island roots are dropped there, other blocks unwrapped);
 * - no `<a>` inside an `<a>`, no heading inside a heading;
 * - `li` only in `ul`/`ol` (other list content is wrapped in an `li`), table parts only in their
 *   parent, `figcaption` only in a built figure, `summary` only directly in `details`, iframes
 *   only in built embeds;
 * - island attributes only on elements a trusted plugin built (see context.ts);
 * - empty paragraphs (left behind by the parser's own repairs) are dropped;
 * - top level: runs of inline content are wrapped in `<p>`, whitespace between blocks is dropped
 *   (serialize.ts writes one block per line).
 */
import type { Element, ElementContent, Root, RootContent } from '../hast';
import { element, hasClass, isWhitespaceText } from '../hast';
import { isBuilt } from '../context';

const BLOCK_TAGS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'table',
  'tbody',
  'tr',
  'td',
  'th',
  'hr',
  'figure',
  'figcaption',
  'div',
  'details',
  'summary',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const REQUIRED_PARENT: Record<string, string> = {
  tbody: 'table',
  tr: 'tbody',
  td: 'tr',
  th: 'tr',
  summary: 'details',
  figcaption: 'figure',
};

const isLinkCard = (el: Element) => el.tagName === 'a' && isBuilt(el) && hasClass(el, 'dp-link-card');

function isBlock(node: RootContent | ElementContent): boolean {
  return node.type === 'element' && (BLOCK_TAGS.has(node.tagName) || isLinkCard(node));
}

/** Built islands are dropped rather than unwrapped: their parts would be rebuilt differently. */
const isIslandRoot = (el: Element) =>
  isBuilt(el) && (el.tagName === 'figure' || el.tagName === 'div' || isLinkCard(el));

interface Context {
  inParagraph: boolean;
  inLink: boolean;
  inHeading: boolean;
}

type Verdict = 'keep' | 'unwrap' | 'remove';

function verdict(el: Element, parentTag: string, ctx: Context): Verdict {
  const tag = el.tagName;
  if (ctx.inParagraph && isBlock(el)) return isIslandRoot(el) ? 'remove' : 'unwrap';
  if (ctx.inLink && tag === 'a') return isLinkCard(el) ? 'remove' : 'unwrap';
  if (ctx.inHeading && HEADINGS.has(tag)) return 'unwrap';
  if (tag === 'li' && parentTag !== 'ul' && parentTag !== 'ol') return 'unwrap';
  const parent = REQUIRED_PARENT[tag];
  if (parent && parent !== parentTag) return 'unwrap';
  if (tag === 'figcaption' && !isBuilt(el)) return 'unwrap';
  if ((tag === 'iframe' || tag === 'figure') && !isBuilt(el)) return tag === 'figure' ? 'unwrap' : 'remove';
  return 'keep';
}

function normalizeList(nodes: readonly ElementContent[], parentTag: string, ctx: Context, out: ElementContent[]): void {
  for (const node of nodes) {
    if (node.type === 'text') {
      if (node.value.includes('\r')) node.value = node.value.replace(/\r\n?/g, '\n');
      out.push(node);
      continue;
    }
    if (node.type !== 'element') continue; // comments and doctypes never pass the sanitizer
    const decision = verdict(node, parentTag, ctx);
    if (decision === 'remove') continue;
    if (decision === 'unwrap') {
      normalizeList(node.children, parentTag, ctx, out);
      continue;
    }
    normalizeElement(node, ctx);
    if (node.tagName === 'p' && node.children.every(isWhitespaceText)) continue; // nothing to show
    out.push(node);
  }
}

function normalizeElement(el: Element, ctx: Context): void {
  const tag = el.tagName;
  if ((tag === 'div' || tag === 'span') && !isBuilt(el)) el.properties = {};
  for (const key in el.properties) {
    // A class list the sanitizer emptied would be written as `class=""`.
    const value = el.properties[key];
    if (Array.isArray(value) && value.length === 0) delete el.properties[key];
  }
  const inner: Context = {
    inParagraph: ctx.inParagraph || tag === 'p',
    inLink: ctx.inLink || tag === 'a',
    inHeading: ctx.inHeading || HEADINGS.has(tag),
  };
  const children: ElementContent[] = [];
  normalizeList(el.children, tag, inner, children);
  if (tag === 'ul' || tag === 'ol') el.children = wrapListContent(children);
  else el.children = children;
  if (tag === 'pre') dropLeadingNewlines(el);
}

/** List content that is not an `li` goes into one (the parser would keep it, but Markdown can't). */
function wrapListContent(children: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  let pending: ElementContent[] = [];
  const flush = () => {
    if (pending.some((node) => !isWhitespaceText(node))) out.push(element('li', {}, pending));
    else out.push(...pending);
    pending = [];
  };
  for (const child of children) {
    if (child.type === 'element' && child.tagName === 'li') {
      flush();
      out.push(child);
    } else pending.push(child);
  }
  flush();
  return out;
}

/** The parser drops one newline right after `<pre>`; dropping them all is a fixpoint. */
function dropLeadingNewlines(pre: Element): void {
  const first = pre.children[0];
  if (first?.type !== 'text' || !first.value.startsWith('\n')) return;
  first.value = first.value.replace(/^\n+/, '');
  if (first.value === '') pre.children.shift();
}

function normalizeTree(tree: Root): void {
  const grouped: ElementContent[] = [];
  let run: ElementContent[] = [];
  const flush = () => {
    if (run.some((node) => !isWhitespaceText(node))) grouped.push(element('p', {}, run));
    run = [];
  };
  for (const child of tree.children as ElementContent[]) {
    if (child.type === 'element' && isBlock(child)) {
      flush();
      grouped.push(child);
    } else if (child.type === 'text' || child.type === 'element') run.push(child);
  }
  flush();
  const out: ElementContent[] = [];
  normalizeList(grouped, 'root', { inParagraph: false, inLink: false, inHeading: false }, out);
  // Unwrapping may have brought inline nodes to the top level again.
  tree.children = out.some((node) => !isBlock(node)) ? regroup(out) : out;
}

function regroup(nodes: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  let run: ElementContent[] = [];
  const flush = () => {
    if (run.some((node) => !isWhitespaceText(node))) {
      const p = element('p', {}, []);
      normalizeList(run, 'p', { inParagraph: true, inLink: false, inHeading: false }, p.children);
      out.push(p);
    }
    run = [];
  };
  for (const node of nodes) {
    if (isBlock(node)) {
      flush();
      out.push(node);
    } else run.push(node);
  }
  flush();
  return out;
}

export default function rehypeNormalize() {
  return (tree: Root) => normalizeTree(tree);
}
