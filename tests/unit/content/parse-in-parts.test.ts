/**
 * A document parsed in parts (server/content/parse-in-parts.ts: cut at the cuts block-parse.ts
 * allows, each part parsed alone, the parts joined) must give the tree of the whole parse,
 * positions included, and the same conversion, byte for byte. Checked with every allowed cut
 * taken at once (the most parts a document can have), over generated documents built from the
 * lines that open, continue and close blocks and list items, the CommonMark and GFM spec examples,
 * the corpus articles and each ordinary document shape. Each check also fails unless enough of
 * its documents were actually cut, between list items included.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Root } from 'mdast';
import { joinParts, parsePart, planParts } from '../../../server/content/parse-in-parts';
import {
  MARKDOWN_SYNTAX_EXTENSIONS,
  parseMarkdownSync,
  preparedMarkdown,
  renderArticleSync,
  renderTreeSync,
} from '../../../server/content/pipeline';
import { ContentRejectedError } from '../../../server/content/errors';
import { articles, specSuites } from './corpus';
import { DOCUMENT_SHAPES } from './shapes';

const SYNTAX = MARKDOWN_SYNTAX_EXTENSIONS;

/** The tree, or the error (the parser's development assertions reject a few generated documents whole too). */
function outcome(parse: () => Root | null): Root | null | string {
  try {
    return parse();
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

/** How `markdown` was cut at every allowed cut: parts, and cuts between list items. */
function cutsOf(markdown: string) {
  const parts = planParts(markdown, SYNTAX, 0);
  return { parts: parts?.length ?? 1, betweenItems: parts?.filter((p) => p.continuesList).length ?? 0 };
}

/** `markdown` parsed at every allowed cut and joined; the whole parse when it allows none. */
function inParts(markdown: string): Root | null {
  const parts = planParts(markdown, SYNTAX, 0);
  if (!parts) return parseMarkdownSync(markdown);
  const nodes = parts.map((part) => parsePart(markdown.slice(part.start, part.end), part, parseMarkdownSync));
  return joinParts(markdown, parts, nodes);
}

/** The conversion of `markdown`, from its tree parsed in parts (`inParts`), or as the pipeline converts it. */
function html(markdown: string, parsed?: (prepared: string) => Root | null): string {
  const input = { markdown, title: 'The title' };
  try {
    if (!parsed) return renderArticleSync(input).html;
    const prepared = preparedMarkdown(input);
    return renderTreeSync(input, prepared, parsed(prepared)!).html;
  } catch (error) {
    if (error instanceof ContentRejectedError) return `rejected: ${error.message}`;
    throw error;
  }
}

describe('parsing in parts', () => {
  /** Lines that open, continue or close blocks and list items, in and out of containers. */
  const plain = fc.constantFrom(
    ' ',
    'text',
    'more *text* and `code`',
    'www.example.com and a@b.co',
    '# heading',
    'Setext',
    '===',
    '---',
    '***',
    '- - -',
    '* * *',
    '- item',
    '- item',
    '- [ ] task',
    '- [x] done',
    '-',
    '- ',
    '-\tx',
    '-     five spaces',
    '1.',
    '1. item',
    '2. item',
    '10. item',
    '2) item',
    '* item',
    '+ item',
    '  - nested',
    '  continued',
    '   three',
    '    indented',
    '     five',
    '\tindented',
    '  1. nested',
    '     1. deeper',
    '  > quoted',
    '  | a | b |',
    '  | - | - |',
    '  <div>',
    '  # nested heading',
    '  ---',
    '> quote',
    '>',
    '> - item',
    '| a | b |',
    '| --- | --- |',
    '| 1 | 2 |',
    '[x]',
    'a\\',
    'b  ',
    '~~strike~~',
    '<https://x.y>',
    '*open',
    'close*',
    '<span>x</span>',
  );
  /** Lines that make a document parse whole, or that only a correct cut rule survives. */
  const crossing = fc.constantFrom(
    '```',
    '```js',
    '~~~',
    '> ```',
    '- ```',
    '  ```',
    '<div>',
    '</div>',
    '[x]: /u',
    '<!-- c -->',
    '<pre>',
  );
  const line = fc.oneof(
    { arbitrary: plain, weight: 40 },
    { arbitrary: fc.constant(''), weight: 10 },
    { arbitrary: crossing, weight: 1 },
  );
  const lines = fc.array(line, { minLength: 1, maxLength: 40 });

  it('gives generated documents, cut at every allowed cut, the tree and the html of the whole parse', () => {
    let runs = 0;
    let cut = 0;
    let betweenItems = 0;
    fc.assert(
      fc.property(lines, fc.boolean(), (parts, trailing) => {
        runs++;
        const markdown = parts.join('\n') + (trailing ? '\n' : '');
        const cuts = cutsOf(markdown);
        if (cuts.parts > 1) cut++;
        if (cuts.betweenItems > 0) betweenItems++;
        const whole = outcome(() => parseMarkdownSync(markdown));
        const joined = outcome(() => inParts(markdown));
        expect(joined, markdown).toEqual(whole);
        if (typeof whole !== 'string') expect(html(markdown, inParts), markdown).toBe(html(markdown));
      }),
      { numRuns: 3000 },
    );
    expect(runs).toBe(3000);
    // About 900 and 50 (the long lists below are cut between items far more often).
    expect(cut).toBeGreaterThan(700);
    expect(betweenItems).toBeGreaterThan(25);
  }, 300_000);

  it('follows no list that starts after indented code and blank lines, where micromark sees no list', () => {
    // Found by the generated documents above: micromark keeps indented code open over blank lines,
    // so `2.` after them interrupts it, which only `1.` may do: a paragraph, not a list to cut.
    for (const code of ['    indented', '\tindented', '- a\n\n      indented in an item']) {
      for (const list of ['2. item\n10. item\n', '2) item\n3) item\n', '* item\n* item\n']) {
        const markdown = `${code}\n\n${list}`;
        expect(
          outcome(() => inParts(markdown)),
          markdown,
        ).toEqual(outcome(() => parseMarkdownSync(markdown)));
        expect(cutsOf(markdown).betweenItems, markdown).toBe(0);
      }
    }
    // After a paragraph, the same lists are lists, cut between their items.
    expect(cutsOf('para\n\n2. item\n10. item\n').betweenItems).toBe(1);
  });

  it('gives documents that are long lists, cut between their items, the tree and the html of the whole parse', () => {
    /** Items that keep the list going, and lines that end it, change its kind or may make it loose. */
    const going = fc.constantFrom(
      '- Item *one*\n  - nested\n    - deeper\n      1. ordered\n      2. `code`\n',
      '- [ ] task\n  - [x] nested task\n',
      '- a\n\n  b\n',
      '- a\n  > quote\n',
      '- a\n  | x | y |\n  | - | - |\n  | 1 | 2 |\n',
      '- a\n  <div>\n',
      '- a\n     indented code\n',
      '-     code at once\n',
    );
    const ending = fc.constantFrom(
      '-\n  starts blank\n',
      '- a\n---\n',
      '- - -\n',
      '- a\nlazy\n',
      '* other bullet\n',
      '1. first\n',
      '3) other delimiter\n',
      '\n',
      'text\n',
    );
    const item = fc.oneof({ arbitrary: going, weight: 4 }, { arbitrary: ending, weight: 1 });
    let runs = 0;
    let betweenItems = 0;
    fc.assert(
      fc.property(fc.array(item, { minLength: 2, maxLength: 30 }), (items) => {
        runs++;
        const markdown = items.join('');
        if (cutsOf(markdown).betweenItems > 0) betweenItems++;
        expect(
          outcome(() => inParts(markdown)),
          markdown,
        ).toEqual(outcome(() => parseMarkdownSync(markdown)));
        expect(html(markdown, inParts), markdown).toBe(html(markdown));
      }),
      { numRuns: 1000 },
    );
    expect(runs).toBe(1000);
    expect(betweenItems).toBeGreaterThan(500); // about 700
  }, 300_000);

  it('gives every spec example, corpus article and document shape the tree and the html of the whole parse', () => {
    const documents = [
      ...Object.values(specSuites()).flatMap((suite) => suite.map((example) => example.markdown)),
      ...articles().map((article) => article.markdown.replace(/\r\n?/g, '\n')),
      ...Object.values(DOCUMENT_SHAPES).map((build) => build(20_000)),
    ];
    let cut = 0;
    for (const markdown of documents) {
      if (cutsOf(markdown).parts > 1) cut++;
      const whole = outcome(() => parseMarkdownSync(markdown));
      expect(
        outcome(() => inParts(markdown)),
        markdown,
      ).toEqual(whole);
    }
    for (const build of Object.values(DOCUMENT_SHAPES)) {
      const markdown = build(20_000);
      expect(html(markdown, inParts)).toBe(html(markdown));
    }
    expect(documents.length).toBeGreaterThan(1000);
    expect(cut).toBeGreaterThan(100);
  }, 300_000);

  it('cuts the tables and nested lists shapes into parts of the size asked for', () => {
    for (const shape of ['GFM tables', 'nested lists']) {
      const markdown = DOCUMENT_SHAPES[shape]!(200_000);
      const parts = planParts(markdown, SYNTAX, 32 * 1024)!;
      expect(parts.length, shape).toBeGreaterThanOrEqual(5);
      expect(parts[0]!.start).toBe(0);
      expect(parts.at(-1)!.end).toBe(markdown.length);
      for (const [i, part] of parts.entries()) {
        if (i > 0) expect(part.start).toBe(parts[i - 1]!.end);
        if (i < parts.length - 1) expect(part.end - part.start).toBeGreaterThanOrEqual(32 * 1024);
      }
      if (shape === 'nested lists') expect(parts.slice(1).every((p) => p.continuesList)).toBe(true);
    }
  });

  it('cuts nothing for a parser with other syntax extensions than the cut rules were written for', () => {
    const markdown = 'One.\n\nTwo.\n\n- a\n- b\n';
    expect(planParts(markdown, SYNTAX, 0)?.length).toBe(3);
    expect(planParts(markdown, [...SYNTAX, { name: 'remark-math' }], 0)).toBeNull();
  });
});
