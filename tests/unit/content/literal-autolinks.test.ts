/**
 * remark-gfm's literal autolink transform runs only on the subtrees whose text may hold a literal
 * (server/content/literal-autolinks.ts). The Markdown tree must be exactly the one remark-gfm
 * alone builds: compared on the corpus articles, every spec example and random documents made of
 * literals (URLs, www., e-mail, mailto:, xmpp:, in every case) in every place text can be.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkLiteralAutolinksWhereTheyMayBe, { literalAutolinkScopes } from '../../../server/content/literal-autolinks';
import { articles, specSuites } from './corpus';

const stock = unified().use(remarkParse).use(remarkGfm).freeze();
const scoped = unified().use(remarkParse).use(remarkGfm).use(remarkLiteralAutolinksWhereTheyMayBe).freeze();

const tree = (processor: typeof stock, markdown: string) => processor.runSync(processor.parse(markdown));

const piece = fc.constantFrom(
  'word ',
  ' ',
  '\n',
  '\n\n',
  'www.example.com',
  'WWW.Example.COM/path?q=1.',
  'https://example.com/a_(b)',
  'HTTP://example.com',
  'http://x',
  'me@example.com',
  'a.b-c+d@ex-ample.co.uk.',
  'mailto:me@example.com',
  'xmpp:me@example.com/res',
  'foo@bar_',
  '(www.example.com)',
  '*',
  '**',
  '~~',
  '`',
  '[',
  '](https://example.com/x)',
  '[link www.example.com](https://example.com/y)',
  '[ref]',
  '[ref]: https://example.com/ref\n\n',
  '[^1]',
  '[^1]: note me@example.com\n\n',
  '![img www.example.com](https://img.example.com/a.png)',
  '<https://example.com/auto>',
  '# ',
  '> ',
  '- ',
  '1. ',
  '- [ ] ',
  '| a | www.b.com |\n| --- | --- |\n| me@c.com | *https://d.com* |\n',
  '    indented https://example.com\n',
  '```\nhttps://example.com\n```\n',
  '<span>www.example.com</span>',
  '\\@',
  '&#64;',
);
const documents = fc.array(piece, { minLength: 1, maxLength: 25 }).map((parts) => parts.join(''));

describe('literal autolinks transformed only where text may hold one', () => {
  it('builds the same Markdown tree as remark-gfm for every corpus article and spec example', () => {
    const inputs = [
      ...articles().map((a) => a.markdown),
      ...Object.values(specSuites()).flatMap((suite) => suite.map((e) => e.markdown)),
    ];
    for (const markdown of inputs) expect(tree(scoped, markdown)).toEqual(tree(stock, markdown));
    expect(inputs.length).toBeGreaterThan(1000);
  });

  it('builds the same Markdown tree as remark-gfm for random documents of literals', () => {
    let linked = 0;
    fc.assert(
      fc.property(documents, (markdown) => {
        const expected = tree(stock, markdown);
        expect(tree(scoped, markdown)).toEqual(expected);
        if (
          JSON.stringify(expected).includes('"url":"mailto:') ||
          JSON.stringify(expected).includes('"url":"http://www')
        )
          linked++;
      }),
      { numRuns: 1000 },
    );
    expect(linked).toBeGreaterThan(200);
  });

  it('transforms nothing where no text could hold a literal, and never text inside a link', () => {
    type Tree = { type: string; value?: string; url?: string; children?: Tree[] };
    const text = (value: string): Tree => ({ type: 'text', value });
    const cell = (...children: Tree[]): Tree => ({ type: 'tableCell', children });
    const literal = {
      type: 'paragraph',
      children: [text('A www.z.com '), { type: 'emphasis', children: [text('e')] }],
    };
    const root: Tree = {
      type: 'root',
      children: [
        {
          type: 'table',
          children: [
            {
              type: 'tableRow',
              children: [
                cell(text('a')),
                cell({ type: 'link', url: 'https://y.com', children: [text('b www.x.com')] }),
                cell({ type: 'emphasis', children: [text('me@example.com')] }),
              ],
            },
          ],
        },
        { type: 'list', children: [{ type: 'listItem', children: [literal] }] },
        { type: 'paragraph', children: [text('no literal here')] },
      ],
    };
    expect(literalAutolinkScopes(root as Parameters<typeof literalAutolinkScopes>[0])).toEqual([
      root.children![0]!.children![0]!.children![2]!.children![0],
      literal,
    ]);
  });
});
