/**
 * patches/mdast-util-from-markdown+2.1.0.patch (applied by `npm install` / `npm ci`, see
 * patches/README.md): the mdast compiler hands every event's handler one context, with
 * `sliceSerialize` set for that event, where the package copies the whole context for each event.
 * Without the patch the first check fails (a context per call); the second holds either way: each
 * handler still slices its own event, and the tree is the one remark builds.
 */
import { describe, expect, it } from 'vitest';
import { fromMarkdown, type CompileContext, type Token } from 'mdast-util-from-markdown';
import { parseMarkdownSync } from '../../../server/content/pipeline';

/** Token types the compiler has no enter handler for, so recording them replaces nothing. */
const RECORDED = ['emphasisSequence', 'strongSequence', 'atxHeadingSequence', 'codeFencedFenceSequence'] as const;

function recordedParse(markdown: string) {
  const contexts = new Set<CompileContext>();
  const slices: string[] = [];
  const record = function (this: CompileContext, token: Token) {
    contexts.add(this);
    slices.push(this.sliceSerialize(token));
  };
  const tree = fromMarkdown(markdown, {
    mdastExtensions: [{ enter: Object.fromEntries(RECORDED.map((type) => [type, record])) }],
  });
  return { contexts, slices, tree };
}

const MARKDOWN = '*a* and **bb**\n\n## c\n\n~~~js\nx\n~~~\n';

describe('the patched mdast compiler', () => {
  it('hands every handler the same context', () => {
    const { contexts, slices } = recordedParse(MARKDOWN);
    expect(slices.length).toBeGreaterThan(4);
    expect(contexts.size).toBe(1);
  });

  it("slices each handler's own event and builds remark's tree", () => {
    const { slices, tree } = recordedParse(MARKDOWN);
    expect(slices).toEqual(['*', '*', '**', '**', '##', '~~~', '~~~']);
    const strip = (node: unknown): unknown =>
      JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'position' ? undefined : value)));
    expect(strip(tree)).toEqual(strip(parseMarkdownSync(MARKDOWN)));
  });
});
