/** Loaders for the Markdown, XSS and article fixtures of tests/fixtures/corpus. Data only; nothing here is fetched. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { corpusPath, readCorpusJson as json } from '../../support/corpus-files';

export interface SpecExample {
  example: number;
  section: string;
  markdown: string;
  html: string;
  extensions?: string[];
}

export const specSuites = (): Record<string, SpecExample[]> => ({
  'commonmark-spec': json<SpecExample[]>('markdown/commonmark-spec.json'),
  'gfm-spec': json<SpecExample[]>('markdown/gfm-spec.json'),
  'gfm-extensions': json<SpecExample[]>('markdown/gfm-extensions.json'),
  'commonmark-js-regression': json<SpecExample[]>('markdown/commonmark-js-regression.json'),
});

export function articles(): { name: string; markdown: string }[] {
  const dir = corpusPath('articles');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((name) => ({ name, markdown: readFileSync(path.join(dir, name), 'utf8') }));
}

export interface XssPayload {
  source: string;
  label: string;
  payload: string;
}

export function xssPayloads(): XssPayload[] {
  const dompurify = json<{ index: number; title?: string; payload: string }[]>('xss/dompurify.json');
  const h5sc = json<{ items: { id: string | number; name: string; payload: string }[] }>('xss/h5sc.json');
  const patt = json<{ list: string; kind: string; payload: string }[]>('xss/payloadsallthethings.json');
  const owasp = json<{ section: string; title: string; payload: string }[]>('xss/owasp-xss-filter-evasion.json');
  return [
    ...dompurify.map((e) => ({ source: 'dompurify', label: `${e.index} ${e.title ?? ''}`.trim(), payload: e.payload })),
    ...h5sc.items.map((e) => ({ source: 'h5sc', label: `${e.id} ${e.name}`, payload: e.payload })),
    ...patt.map((e, i) => ({ source: 'payloadsallthethings', label: `${i} ${e.list}`, payload: e.payload })),
    ...owasp.map((e, i) => ({ source: 'owasp', label: `${i} ${e.title}`, payload: e.payload })),
  ];
}

export type RecipePart =
  | { text: string }
  | { repeat: string; times: number | string }
  | { sequence: { var: string; from: number; to: number; item: RecipePart[] } };

interface PathologicalCase {
  name: string;
  recipe?: { parts: RecipePart[] };
  generator?: { kind: string; refmap_size: number; count: number };
  input_length: number;
}

/** The recipe builder described in tests/fixtures/README.md (corpus/markdown). */
export function buildRecipe(parts: RecipePart[], env: Record<string, number> = {}): string {
  return parts
    .map((p) =>
      'text' in p
        ? p.text
        : 'repeat' in p
          ? p.repeat.repeat(typeof p.times === 'string' ? env[p.times]! : p.times)
          : Array.from({ length: p.sequence.to - p.sequence.from + 1 }, (_, k) =>
              buildRecipe(p.sequence.item, { [p.sequence.var]: p.sequence.from + k }),
            ).join(''),
    )
    .join('');
}

/**
 * The hash-collision case has no recipe, only a description: many link reference definitions
 * whose labels collide in cmark's 16-bucket refmap. Any large set of distinct definitions plus
 * references exercises the same code path in a JS Map, which is what matters for us.
 */
function buildReferenceFlood(count: number): string {
  const defs = Array.from({ length: count }, (_, i) => `[x${i}]: https://example.com/${i}`).join('\n');
  const refs = Array.from({ length: count }, (_, i) => `[x${i}]`).join(' ');
  return `${defs}\n\n${refs}\n`;
}

export function pathologicalCases(): { name: string; markdown: string }[] {
  const { cases } = json<{ cases: PathologicalCase[] }>('markdown/pathological.json');
  return cases.map((c) => ({
    name: c.name,
    markdown: c.recipe ? buildRecipe(c.recipe.parts) : buildReferenceFlood(c.generator!.count),
  }));
}

/**
 * Hand-written adversarial patterns, the classic shapes that make Markdown parsers recurse or go
 * quadratic (unclosed brackets, mismatched emphasis, deep nesting), built at about `bytes` bytes.
 */
export const ADVERSARIAL_PATTERNS: Record<string, (bytes: number) => string> = {
  'nested [': (n) => '['.repeat(n),
  'mismatched emphasis': (n) => '*a_ '.repeat(Math.ceil(n / 4)),
  'nested > blockquotes': (n) => '> '.repeat(Math.ceil(n / 2)) + 'a',
  'deep list on one line': (n) => '- '.repeat(Math.ceil(n / 2)) + 'a',
  'deep indented list': (n) =>
    Array.from({ length: Math.max(1, Math.floor(Math.sqrt(n))) }, (_, i) => `${'  '.repeat(i)}- a\n`).join(''),
  'nested emphasis': (n) => {
    const pairs = Math.ceil(n / 14);
    return '*a **a '.repeat(pairs) + 'b' + ' a** a*'.repeat(pairs);
  },
};
