/** The linear pre-scan that refuses deep nesting before parsing (server/content/prescan.ts). */
import { describe, expect, it } from 'vitest';
import { assertNestingWithinLimit } from '../../../server/content/prescan';
import { ContentRejectedError } from '../../../server/content';
import { html } from './render';
import { articles, specSuites } from './corpus';

const refuses = (markdown: string) => expect(() => assertNestingWithinLimit(markdown)).toThrow(ContentRejectedError);
const accepts = (markdown: string) => expect(() => assertNestingWithinLimit(markdown)).not.toThrow();

describe('nesting pre-scan', () => {
  it('refuses more than 100 nested block quotes, list markers or list indentation levels', () => {
    refuses('> '.repeat(101) + 'a');
    refuses('>'.repeat(101) + 'a');
    refuses('- '.repeat(101) + 'a');
    refuses('1. '.repeat(101) + 'a');
    refuses(`${'  '.repeat(101)}- a`);
    accepts('> '.repeat(100) + 'a');
    accepts('- '.repeat(50) + '> '.repeat(50) + 'a');
  });
  it('refuses more than 100 open [ brackets on a line, ignoring escaped ones', () => {
    refuses('['.repeat(101) + 'a');
    refuses('[a'.repeat(101));
    accepts('[a]'.repeat(1000));
    accepts('\\['.repeat(1000));
  });
  it('ignores fenced code and <pre> content', () => {
    accepts('```\n' + '> '.repeat(500) + '\n' + '['.repeat(500) + '\n```\nafter');
    accepts('<pre><code>' + '['.repeat(500) + '\n' + '> '.repeat(500) + '\n</code></pre>');
    refuses('```\ncode\n```\n' + '['.repeat(101));
  });
  it('names the problem in the message', () => {
    expect(() => assertNestingWithinLimit('> '.repeat(200))).toThrow(
      'markdown: nesting too deep (more than 100 levels of block quotes or lists)',
    );
    expect(() => assertNestingWithinLimit('['.repeat(200))).toThrow(
      'markdown: nesting too deep (more than 100 levels of [ brackets)',
    );
  });
  it('lets the service output of deep-but-allowed content round-trip through itself', () => {
    const first = html('> '.repeat(60) + 'deep\n\n```\n' + '['.repeat(300) + '\n```');
    expect(html(first)).toBe(first);
  });
});

describe('size limit', () => {
  it('refuses documents over 2 MiB by name', () => {
    expect(() => html('a'.repeat(2 * 1024 * 1024 + 1))).toThrow(
      'markdown: document too large (more than 2097152 bytes)',
    );
  });
});

describe('pre-scan and the round trip', () => {
  it('accepts the one-line HTML of a table whose cells each hold a few open brackets', () => {
    const rows = Array.from({ length: 60 }, () => '| [a | [b |').join('\n');
    const first = html(`| h | i |\n| - | - |\n${rows}`);
    expect(html(first)).toBe(first);
  });
});

describe('emphasis delimiter runs', () => {
  it('refuses a run of more than 200 * or _ outside thematic breaks', () => {
    expect(() => assertNestingWithinLimit('*'.repeat(201) + 'x' + '*'.repeat(201))).toThrow(
      'markdown: nesting too deep (a run of more than 200 * or _ emphasis delimiters)',
    );
    refuses('a ' + '_'.repeat(300) + ' b');
  });
  it('accepts thematic breaks and ordinary fill-in blanks', () => {
    accepts('*'.repeat(500));
    accepts('* * * '.repeat(100));
    accepts('Name: ' + '_'.repeat(40));
    accepts('***bold italic*** and __strong__');
  });
});

describe('escaped delimiter runs and the round trip', () => {
  it('accepts the output of 300 escaped asterisks when it is sent back', () => {
    const first = html('\\*'.repeat(300) + ' and ' + '\\_'.repeat(300));
    expect(html(first)).toBe(first);
  });
});

describe('per-paragraph limits (work micromark does in count x paragraph length)', () => {
  const message = (markdown: string) => {
    try {
      assertNestingWithinLimit(markdown);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  it('refuses more than 250 emphasis delimiter runs in one paragraph, by name', () => {
    expect(message('*a_ '.repeat(126))).toBe(
      'markdown: too many * or _ emphasis delimiters in one paragraph (more than 250)',
    );
    refuses('_a '.repeat(251));
    refuses('a_ '.repeat(251));
    refuses('*a* '.repeat(126));
    refuses('*a_\n'.repeat(126)); // lines of one paragraph
    accepts('_a '.repeat(250));
    accepts('*a_ '.repeat(100) + '\n\n' + '*a_ '.repeat(100)); // two paragraphs
    accepts('snake_case_name '.repeat(2000)); // intraword _ neither opens nor closes
    accepts('a * b '.repeat(2000)); // surrounded by spaces: neither
  });
  it('refuses more than 100 open [ in one paragraph, across lines', () => {
    expect(message('[a\n'.repeat(101))).toBe('markdown: too many unmatched [ in one paragraph (more than 100)');
    accepts('[a\n\n'.repeat(500));
  });
  it('refuses more than 2000 [ ] labels or links in one paragraph', () => {
    expect(message('x [a] y '.repeat(2001))).toBe(
      'markdown: too many [ ] labels or links in one paragraph (more than 2000)',
    );
    accepts('x [a] y '.repeat(2000));
    accepts(Array.from({ length: 3000 }, (_, i) => `- [item ${i}](https://example.com/${i})`).join('\n')); // list items
  });
  it('refuses unclosed link resources and unmatched ] that would rescan the paragraph', () => {
    expect(message('[ (]('.repeat(1000))).toMatch(
      /^markdown: too many unclosed link destinations or titles .* in one paragraph/,
    );
    refuses('[ (]('.repeat(1000) + ')x');
    refuses('[a](b '.repeat(5000));
    expect(message('a] '.repeat(1000))).toMatch(/^markdown: too many unmatched \] in one paragraph/);
    accepts('[a](https://example.com/a "title") '.repeat(1500));
    accepts('[ (](\n\n'.repeat(1000));
  });
  it('counts each GFM table cell on its own and skips column-0 HTML blocks', () => {
    const row = `| ${'[a '.repeat(60)} | ${'*a_ '.repeat(100)} |`;
    accepts(`| h | i |\n| - | - |\n${Array.from({ length: 20 }, () => row).join('\n')}`);
    accepts('<div>\n' + '*a_ '.repeat(5000) + '\n</div>');
    refuses('> <div>\n' + '*a_ '.repeat(5000)); // not at column 0: counted
    refuses('text\n' + '| a | b |\n'.repeat(3) + '*a_ '.repeat(2000)); // not a table: no delimiter row
  });
  it('refuses nothing in the corpus articles, the spec examples, or their converted output', () => {
    const docs = [
      ...articles().map((a) => a.markdown),
      ...Object.values(specSuites()).flatMap((s) => s.map((e) => e.markdown)),
    ];
    const refusedByParagraphRules: string[] = [];
    let checked = 0;
    let rejected = 0;
    let prescanRefused = 0;
    for (const markdown of docs) {
      const problem = message(markdown);
      if (problem?.includes('in one paragraph')) refusedByParagraphRules.push(markdown.slice(0, 60));
      if (problem) {
        prescanRefused++;
        continue;
      }
      let output: string;
      try {
        output = html(markdown);
      } catch (error) {
        // Only the pipeline's own refusals (an empty document, say) are set aside, and counted.
        expect(error).toBeInstanceOf(ContentRejectedError);
        rejected++;
        continue;
      }
      expect(message(output)).toBeUndefined();
      checked++;
    }
    expect(refusedByParagraphRules).toEqual([]);
    expect(checked).toBeGreaterThan(docs.length * 0.9);
    expect(checked + rejected + prescanRefused).toBe(docs.length);
  });
});
