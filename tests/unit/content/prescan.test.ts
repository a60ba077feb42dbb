/** The linear pre-scan that refuses deep nesting before parsing (server/content/prescan.ts). */
import { describe, expect, it } from 'vitest';
import { assertNestingWithinLimit } from '../../../server/content/prescan';
import { ContentRejectedError } from '../../../server/content';
import { html } from './render';

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
    expect(() => assertNestingWithinLimit('['.repeat(200))).toThrow('markdown: nesting too deep (more than 100 levels of [ brackets)');
  });
  it('lets the service output of deep-but-allowed content round-trip through itself', () => {
    const first = html('> '.repeat(60) + 'deep\n\n```\n' + '['.repeat(300) + '\n```');
    expect(html(first)).toBe(first);
  });
});

describe('size limit', () => {
  it('refuses documents over 2 MiB by name', () => {
    expect(() => html('a'.repeat(2 * 1024 * 1024 + 1))).toThrow('markdown: document too large (more than 2097152 bytes)');
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
