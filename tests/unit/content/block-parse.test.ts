/**
 * Parsing block by block with a cache (server/content/block-parse.ts) must give the tree of the
 * whole parse, positions included, whatever the document and whatever the cache already holds:
 * cold, warm, after an edit, after another document. Checked over the CommonMark and GFM spec
 * examples, the corpus articles and generated documents built from the lines that make blocks
 * cross blank lines (fences in and out of containers, HTML blocks, definitions, lists). Each
 * check also fails unless enough of its documents were actually cut into blocks.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Root } from 'mdast';
import { BlockParseCache, blockStarts } from '../../../server/content/block-parse';
import { MARKDOWN_SYNTAX_EXTENSIONS, parseMarkdownSync, renderArticleSync } from '../../../server/content/pipeline';
import { articles, specSuites } from './corpus';

/** A parser that records the texts it was given. */
function recordingParser() {
  const texts: string[] = [];
  const parse = (text: string): Root => {
    texts.push(text);
    return parseMarkdownSync(text);
  };
  return { texts, parse };
}

const whole = (markdown: string) => parseMarkdownSync(markdown);
/** The pipeline's syntax extensions, which the cut rules were written for. */
const SYNTAX = MARKDOWN_SYNTAX_EXTENSIONS;

/**
 * The tree, or the error: the parser's own development assertions (devlop) reject a few
 * generated documents in the whole parse too, and then the block parse must fail alike.
 */
function outcome(parse: () => Root): Root | string {
  try {
    return parse();
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}
const cut = (markdown: string) => (blockStarts(markdown)?.length ?? 0) >= 2;

describe('parsing block by block', () => {
  it('gives every spec example the tree of the whole parse, cold, warm and edited', () => {
    const documents = Object.values(specSuites()).flatMap((suite) => suite.map((example) => example.markdown));
    const cache = new BlockParseCache();
    let split = 0;
    for (const markdown of documents) {
      if (cut(markdown)) split++;
      expect(cache.parse(markdown, 'a', parseMarkdownSync, SYNTAX), markdown).toEqual(whole(markdown));
      expect(cache.parse(markdown, 'a', parseMarkdownSync, SYNTAX), markdown).toEqual(whole(markdown));
      for (const edited of [`${markdown}\n\nAn added paragraph.\n`, `A new first paragraph.\n\n${markdown}`]) {
        expect(cache.parse(edited, 'a', parseMarkdownSync, SYNTAX), edited).toEqual(whole(edited));
      }
    }
    expect(documents.length).toBeGreaterThan(1000);
    // Most examples are one block; their edited forms (two or three) are counted by the property below.
    expect(split).toBeGreaterThan(50);
  });

  it('gives every corpus article the tree of the whole parse and the same conversion, cold and edited', () => {
    const cache = new BlockParseCache(16 * 1024 * 1024, 1024 * 1024);
    let split = 0;
    for (const { name, markdown } of articles()) {
      if (cut(markdown)) split++;
      expect(cache.parse(markdown, 'a', parseMarkdownSync, SYNTAX), name).toEqual(whole(markdown));
      const edited = `A new first paragraph.\n\n${markdown.replace(/\n\n/, '\n\nAn inserted paragraph.\n\n')}`;
      const input = { markdown: edited, title: 'The title' };
      expect(renderArticleSync(input, { cache, scope: 'a' }), name).toEqual(renderArticleSync(input));
    }
    expect(split).toBeGreaterThan(10);
  }, 180_000);

  /** Lines that open, close or continue blocks, in and out of containers. */
  const plain = fc.constantFrom(
    '',
    '',
    '',
    ' ',
    '\t',
    'text',
    'more *text* and `code`',
    'www.example.com and a@b.co',
    '# heading',
    'Setext',
    '===',
    '---',
    '***',
    '- item',
    '-',
    '1.',
    '* item',
    '+ item',
    '1. item',
    '2) item',
    '- [ ] task',
    '  - nested',
    '  continued',
    '   three',
    '    indented',
    '\tindented',
    '> quote',
    '>',
    '> - item',
    '```',
    '```js',
    '````',
    '~~~',
    '~~~ info `x`',
    '```a`b',
    '| a | b |',
    '| --- | --- |',
    '| 1 | 2 |',
    '[x]',
    '[x][y]',
    '[^1]',
    'a\\',
    'b  ',
    '~~strike~~',
    '<https://x.y>',
    '*open',
    'close*',
  );
  /** Lines that make a document parse whole, or that only a correct cut rule survives. */
  const crossing = fc.constantFrom(
    '> ```',
    '- ```',
    '1. ~~~',
    '  ```',
    '    ```',
    '<div>',
    '</div>',
    '<span>x</span>',
    '  <figure>',
    '[x]: /u',
    '[^1]: note',
    '<!-- c -->',
    '<pre>',
    '</pre>',
  );
  const line = fc.oneof({ arbitrary: plain, weight: 12 }, { arbitrary: crossing, weight: 1 });
  const lines = fc.array(line, { minLength: 1, maxLength: 30 });
  const text = (parts: string[], trailing: boolean) => parts.join('\n') + (trailing ? '\n' : '');

  it('gives generated documents, and each after an edit, the tree of the whole parse', () => {
    let runs = 0;
    let split = 0;
    let reused = 0;
    fc.assert(
      fc.property(
        lines,
        fc.boolean(),
        fc.nat(),
        fc.constantFrom('replace', 'insert', 'delete'),
        line,
        (parts, trailing, at, edit, replacement) => {
          runs++;
          const before = text(parts, trailing);
          const changed = [...parts];
          const i = at % changed.length;
          if (edit === 'replace') changed[i] = replacement;
          else if (edit === 'insert') changed.splice(i, 0, replacement);
          else changed.splice(i, 1);
          const after = text(changed, trailing);
          const cache = new BlockParseCache();
          if (cut(before)) split++;
          expect(outcome(() => cache.parse(before, 'a', parseMarkdownSync, SYNTAX))).toEqual(
            outcome(() => whole(before)),
          );
          const { texts, parse } = recordingParser();
          expect(outcome(() => cache.parse(after, 'a', parse, SYNTAX))).toEqual(outcome(() => whole(after)));
          if (cut(after) && texts.join('').length < after.length) reused++;
        },
      ),
      { numRuns: 3000 },
    );
    expect(runs).toBe(3000);
    expect(split).toBeGreaterThan(300);
    expect(reused).toBeGreaterThan(100);
  });

  it('parses only the blocks an edit changed, in one text per run of changed blocks', () => {
    const blocks = ['# Title', 'First paragraph.', '> A quote', 'Second paragraph.', '| a |\n| - |\n| 1 |', 'Last.'];
    const cache = new BlockParseCache();
    cache.parse(blocks.join('\n\n'), 'a', parseMarkdownSync, SYNTAX);
    const edited = [...blocks];
    edited[1] = 'First paragraph, edited.';
    edited[3] = 'Second paragraph, edited.';
    edited.push('Added.');
    const { texts, parse } = recordingParser();
    const markdown = edited.join('\n\n');
    expect(cache.parse(markdown, 'a', parse, SYNTAX)).toEqual(whole(markdown));
    // The last block was 'Last.' and is now 'Last.\n\n': a new text.
    expect(texts).toEqual(['First paragraph, edited.\n\n', 'Second paragraph, edited.\n\n', 'Last.\n\nAdded.']);
  });

  it("never reuses another account's blocks", () => {
    const markdown = 'One paragraph.\n\nAnother paragraph.\n';
    const cache = new BlockParseCache();
    cache.parse(markdown, 'account-a', parseMarkdownSync, SYNTAX);
    const other = recordingParser();
    expect(cache.parse(markdown, 'account-b', other.parse, SYNTAX)).toEqual(whole(markdown));
    expect(other.texts).toEqual([markdown]);
    const same = recordingParser();
    cache.parse(markdown, 'account-a', same.parse, SYNTAX);
    expect(same.texts).toEqual([]);
  });

  it('keeps at most its budget of source characters, the least recently used going first', () => {
    const paragraph = (n: number) => `Paragraph ${n} ${'x'.repeat(90)}.\n\n`;
    // Room for about ten paragraphs of ~100 characters (each key also holds the scope).
    const cache = new BlockParseCache(1_000, 500);
    const first = Array.from({ length: 5 }, (_, i) => paragraph(i)).join('');
    const second = Array.from({ length: 8 }, (_, i) => paragraph(i + 5)).join('');
    cache.parse(first, 'a', parseMarkdownSync, SYNTAX);
    cache.parse(second, 'a', parseMarkdownSync, SYNTAX);
    // Each key is about 107 characters (scope included), so 9 fit: of the 13 blocks, the first
    // document's oldest 4 were pushed out.
    const again = recordingParser();
    expect(cache.parse(first, 'a', again.parse, SYNTAX)).toEqual(whole(first));
    expect(again.texts.join('')).toBe([0, 1, 2, 3].map(paragraph).join(''));
    // A block longer than the per-block bound is parsed every time.
    const long = `${'y'.repeat(600)}\n\nShort.\n`;
    cache.parse(long, 'a', parseMarkdownSync, SYNTAX);
    const longAgain = recordingParser();
    cache.parse(long, 'a', longAgain.parse, SYNTAX);
    expect(longAgain.texts).toEqual([`${'y'.repeat(600)}\n\n`]);
  });

  it('cuts nothing for a parser with other syntax extensions than the cut rules were written for', () => {
    const markdown = 'One paragraph.\n\nAnother paragraph.\n\nA third.\n';
    expect(cut(markdown)).toBe(true);
    for (const syntax of [
      [...SYNTAX, { name: 'remark-math' }],
      [{ name: 'remark-math' }, ...SYNTAX],
      [],
      [{ name: 'remark-gfm-with-options' }],
    ]) {
      const cache = new BlockParseCache();
      const first = recordingParser();
      expect(cache.parse(markdown, 'a', first.parse, syntax)).toEqual(whole(markdown));
      const again = recordingParser();
      expect(cache.parse(markdown, 'a', again.parse, syntax)).toEqual(whole(markdown));
      // Parsed whole both times: nothing was cut, so nothing was kept or reused.
      expect([...first.texts, ...again.texts]).toEqual([markdown, markdown]);
      expect(cache.counts).toEqual({ reused: 0, parsed: 2 * markdown.length });
    }
    // The same document with the pipeline's own list is cut, and its blocks reused.
    const cache = new BlockParseCache();
    cache.parse(markdown, 'a', parseMarkdownSync, SYNTAX);
    const again = recordingParser();
    expect(cache.parse(markdown, 'a', again.parse, SYNTAX)).toEqual(whole(markdown));
    expect(again.texts).toEqual([]);
  });

  it('parses whole the documents whose blocks cross blank lines', () => {
    for (const markdown of [
      'See [x].\n\n[x]: https://example.com\n',
      'Note[^1].\n\n[^1]: The note.\n',
      '<pre>\na\n\nb\n</pre>\n\nText.\n',
      '<!--\n\nText.\n-->\n\nMore.\n',
      '- a\n\n  ```\n\nb\n\n  ```\n',
      '1. ~~~\n\nb\n',
      '<div>\n```\n</div>\n\n```\ncode\n\ntext\n```\n',
      'a\r\n\r\nb\r\n',
    ])
      expect(blockStarts(markdown), markdown).toBeNull();
    expect(blockStarts('a\n\nb\n\n- c\n\n- d\n\n```\nx\n\ny\n```\n\ne\n')).toEqual([0, 3, 16, 30]);
  });
});
