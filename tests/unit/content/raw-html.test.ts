/**
 * A document without raw HTML skips the HTML parser (server/content/raw-html.ts); one with raw
 * HTML goes through it. Both paths must give the same output for the same Markdown. An HTML
 * comment block in front of a document sends it through the parser and adds nothing to the
 * output (the sanitizer removes comments), so a document must convert alike with and without one.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ContentRejectedError } from '../../../server/content';
import { render } from './render';

/** A document's output, or its refusal. */
function outcome(markdown: string): string {
  try {
    return render(markdown).html;
  } catch (error) {
    if (error instanceof ContentRejectedError) return `refused: ${error.message}`;
    throw error;
  }
}

const throughParser = (markdown: string) => `<!-- sent through the HTML parser -->\n\n${markdown}`;

/**
 * Markdown-only pieces (no raw HTML), among them the shapes where the HTML parser restructures
 * what remark-rehype builds: code opening with blank lines, footnote calls inside links, links
 * and emphasis nested in each other, tables, lists and quotes holding code.
 */
const piece = fc.constantFrom(
  'word',
  'a < b > c & d',
  '```',
  '```js',
  '~~~',
  '    indented code',
  '\n',
  '\n\n',
  '\n\n\n',
  '  \n',
  '\\\n',
  '- ',
  '1. ',
  '- [ ] ',
  '  - ',
  '> ',
  '# ',
  '## ',
  '| a | b |\n| --- | --- |\n| 1 | 2 |',
  '|',
  '[link](https://example.com/x)',
  '[a[^1]](https://example.com/fn)',
  '[^1]',
  '[^1]: note',
  '[^2]: ```\n    \n    x',
  '[ref]',
  '[ref]: https://example.com/ref',
  '![img](https://img.example.com/a.png)',
  '[![img](https://img.example.com/b.png)](https://example.com/y)',
  '<https://example.com/auto>',
  'www.example.com',
  'https://example.com/literal',
  'me@example.com',
  '*',
  '**',
  '_',
  '~~',
  '`',
  '&amp;',
  '&#10;',
  '\\<b>',
  '---',
  '***',
  '===',
  '\t',
);
const markdownOnly = fc.array(piece, { minLength: 1, maxLength: 30 }).map((parts) => parts.join(''));

describe('raw HTML parsing only where a document has raw HTML', () => {
  it('converts Markdown-only documents alike with and without a trip through the HTML parser', () => {
    let compared = 0;
    let converted = 0;
    fc.assert(
      fc.property(markdownOnly, (markdown) => {
        const direct = outcome(markdown);
        expect(outcome(throughParser(markdown))).toBe(direct);
        compared++;
        if (!direct.startsWith('refused: ')) converted++;
      }),
      { numRuns: 1500 },
    );
    expect(compared).toBe(1500);
    expect(converted).toBeGreaterThan(1000);
  });

  it('drops the blank line a code block opens with, as the HTML parser does after <pre>', () => {
    for (const markdown of [
      '```\n\naaa\n```',
      '```\n\n\naaa\n```',
      '> ```\n> \n> x\n> ```',
      '- a\n\n  ```\n\n  b\n  ```',
    ]) {
      expect(outcome(markdown)).toBe(outcome(throughParser(markdown)));
    }
    expect(render('```\n\naaa\n```').html).toBe('<h1>The title</h1>\n<pre><code>aaa\n</code></pre>');
  });

  it('closes a link at a footnote call inside it, as the HTML parser does', () => {
    const markdown = '[a[^1]](https://x.com)\n\n[^1]: note';
    expect(outcome(markdown)).toBe(outcome(throughParser(markdown)));
    expect(render(markdown).html).toContain('<p><a href="https://x.com/">a</a>1</p>');
  });
});
