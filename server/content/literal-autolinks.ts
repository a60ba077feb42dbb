/**
 * remark-gfm's literal autolink transform (mdast-util-gfm-autolink-literal: `www.x.com`,
 * `https://x.com`, `a@b.co` in text become links), run only on the parts of the tree whose text
 * could hold one. Same result for every tree.
 *
 * Why: the transform is mdast-util-find-and-replace with four patterns, and that makes one full
 * unist-util-visit-parents walk of the tree per pattern, each allocating a closure, a renamed
 * function and an array of ancestors for every node. Over the corpus it was 6.7 % of a
 * conversion; on a document of GFM tables or nested lists, every cell and item a node of its own,
 * 10–12 % of the CPU time and a sixth of all the memory allocated (bench/content.ts profile).
 *
 * How: one plain walk collects disjoint subtrees that together hold every text node outside
 * `link` and `linkReference` (which the transform ignores): the nearest node above each text
 * node. The original transform then runs on each such subtree whose text has `@`, `http://`,
 * `https://` or `www.` (every one of its four patterns needs one of them), and nowhere else. A
 * replacement only ever splits a text node among its own parent's children and reads nothing
 * but that text node's value, so running it subtree by subtree changes nothing; a subtree
 * without any of those strings would not change at all.
 *
 * If remark-gfm's extension ever changes shape (no `literalAutolink` handler, or not exactly one
 * transform), the original stays.
 */
import type { Processor } from 'unified';

interface Node {
  type: string;
  value?: unknown;
  children?: Node[];
}
type Transform = (tree: Node) => Node | undefined | void;
interface FromMarkdownExtension {
  enter?: Record<string, unknown>;
  transforms?: Transform[];
}
type Extensions = (FromMarkdownExtension | Extensions)[];

/** Nodes whose text the transform leaves alone (its `ignore` option). */
const IGNORED = new Set(['link', 'linkReference']);

/** Every pattern needs `@` (e-mail, mailto:, xmpp:) or one of these (URLs, case-insensitive). */
const URL_START = /https?:\/\/|www\./i;

function mayHoldLiteral(value: string): boolean {
  return value.includes('@') || URL_START.test(value);
}

/** Whether any text under `node` (outside ignored nodes) may hold a literal. */
function subtreeMayHoldLiteral(node: Node): boolean {
  const stack: Node[] = [node];
  for (let current = stack.pop(); current; current = stack.pop()) {
    if (current.type === 'text' && typeof current.value === 'string' && mayHoldLiteral(current.value)) return true;
    if (current.children && !IGNORED.has(current.type)) for (const child of current.children) stack.push(child);
  }
  return false;
}

/**
 * The subtrees to transform: below `tree`, outside ignored nodes, the nearest node above each
 * text node, whole (a paragraph, heading, table cell or emphasis), in document order.
 */
export function literalAutolinkScopes(tree: Node): Node[] {
  const scopes: Node[] = [];
  const stack: Node[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const children = node.children!;
    if (children.some((child) => child.type === 'text')) {
      if (subtreeMayHoldLiteral(node)) scopes.push(node);
      continue;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      if (child.children && !IGNORED.has(child.type)) stack.push(child);
    }
  }
  return scopes;
}

function scoped(transform: Transform): Transform {
  return (tree) => {
    if (IGNORED.has(tree.type) || !tree.children) return transform(tree);
    for (const scope of literalAutolinkScopes(tree)) transform(scope);
    return tree;
  };
}

function replaceIn(extensions: Extensions): Extensions {
  return extensions.map((extension) => {
    if (Array.isArray(extension)) return replaceIn(extension);
    const transforms = extension.transforms;
    if (!extension.enter || !('literalAutolink' in extension.enter) || transforms?.length !== 1) return extension;
    return { ...extension, transforms: [scoped(transforms[0]!)] };
  });
}

/** Use right after remark-gfm. */
export default function remarkLiteralAutolinksWhereTheyMayBe(this: Processor): void {
  const data = this.data() as { fromMarkdownExtensions?: Extensions };
  if (data.fromMarkdownExtensions) data.fromMarkdownExtensions = replaceIn(data.fromMarkdownExtensions);
}
