/**
 * server/content/without-positions.ts: the Markdown tree's source positions are dropped before
 * remark-rehype, every node keeping the field (undefined) so that its shape stays V8's; the
 * HTML does not change (the golden corpus and the spec corpora hold the whole conversion).
 */
import { describe, expect, it } from 'vitest';
import type { Root } from 'mdast';
import remarkWithoutPositions from '../../../server/content/without-positions';
import { parseMarkdownSync } from '../../../server/content/pipeline';

function nodes(tree: Root): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (node: Record<string, unknown>) => {
    out.push(node);
    for (const child of (node.children as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(tree as unknown as Record<string, unknown>);
  return out;
}

describe('source positions dropped before the HTML is built', () => {
  it('leaves no position on any node, and the field on each', () => {
    const tree = parseMarkdownSync('# T\n\n- a *b*\n  - c\n\n| x |\n| - |\n| `y` |\n\n> q [l](u)\n');
    const before = nodes(tree);
    expect(before.length).toBeGreaterThan(15);
    expect(before.every((n) => n.position !== undefined)).toBe(true);
    remarkWithoutPositions()(tree);
    const after = nodes(tree);
    expect(after).toHaveLength(before.length);
    expect(after.every((n) => 'position' in n && n.position === undefined)).toBe(true);
  });
});
