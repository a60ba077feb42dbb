/**
 * Drops the source positions of the Markdown tree once nothing reads them: between the last
 * Markdown transform and remark-rehype (pipeline.ts).
 *
 * Why: the positions are the parser's, and what needs them (the parsed-block cache and the join
 * of a document parsed in parts, block-parse.ts and parse-in-parts.ts) has used them before the
 * conversion starts. The HTML never shows them, yet remark-rehype copies each into a fresh
 * position of its hast node (three objects per node), and the HTML parser (raw-html.ts) would
 * keep them for the elements it builds. Without them, over the corpus, a conversion does about
 * 5 % less work (`npx tsx bench/content.ts throughput`, README "Conversion speed").
 *
 * The field is set to undefined rather than deleted, so every node keeps the shape V8 gave it.
 */
import type { Root } from 'mdast';

interface Positioned {
  position?: unknown;
  children?: Positioned[];
}

function drop(node: Positioned): void {
  node.position = undefined;
  if (node.children) for (const child of node.children) drop(child);
}

export default function remarkWithoutPositions() {
  return (tree: Root): void => drop(tree);
}
