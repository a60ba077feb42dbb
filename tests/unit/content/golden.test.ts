/**
 * Golden outputs: every corpus article, every spec example, every XSS payload and a small
 * document of each ordinary shape (shapes.ts: islands, images, tables…) converts to the bytes
 * committed under tests/fixtures/golden/ (written by the pipeline as it stood before its
 * conversion was made faster; tests/fixtures/README.md). A speed change must not change a byte
 * of any output, so any difference fails here, including in `externalImages` and `writtenAs`.
 *
 * After a deliberate change of a content rule, and only then, rewrite the files and review the
 * diff: GOLDEN_UPDATE=1 npx vitest run --project unit tests/unit/content/golden.test.ts
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContentRejectedError, renderArticleSync } from '../../../server/content';
import { articles, specSuites, xssPayloads } from './corpus';
import { DOCUMENT_SHAPES } from './shapes';

const GOLDEN = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
const UPDATE = process.env.GOLDEN_UPDATE === '1';
const TITLE = 'Golden title';

/** The committed text of `relative`, or, in update mode, `actual` written there. */
function golden(relative: string, actual: string): string {
  const file = path.join(GOLDEN, relative);
  if (UPDATE) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  return readFileSync(file, 'utf8');
}

type Outcome = { html: string } | { rejected: string };

function outcome(markdown: string): Outcome {
  try {
    return { html: renderArticleSync({ markdown, title: TITLE }).html };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { rejected: error.message };
    throw error;
  }
}

const json = (value: unknown) => `${JSON.stringify(value, null, 1)}\n`;

/** Golden files are named after the article without its `.md`. */
const corpus = articles().map((a) => ({ ...a, name: a.name.replace(/\.md$/, '') }));

describe('golden outputs of the corpus articles', () => {
  it.each(corpus.map((a) => [a.name, a.markdown]))('%s converts to its golden html and images', (name, markdown) => {
    const { html, externalImages, writtenAs } = renderArticleSync({ markdown, title: TITLE });
    expect(html).toBe(golden(`articles/${name}.html`, html));
    const images = json({ externalImages, writtenAs });
    expect(images).toBe(golden(`articles/${name}.json`, images));
  });

  // Last, so that GOLDEN_UPDATE=1 writes the files before they are listed.
  it('checked every article, and no golden file is left without one', () => {
    expect(corpus.length).toBeGreaterThan(0);
    const files = readdirSync(path.join(GOLDEN, 'articles'));
    const names = corpus.map((a) => a.name);
    expect(files.filter((f) => f.endsWith('.html')).sort()).toEqual(names.map((n) => `${n}.html`));
    expect(files.filter((f) => f.endsWith('.json')).sort()).toEqual(names.map((n) => `${n}.json`));
  });
});

describe('golden outputs of the spec examples and XSS payloads', () => {
  const suites = Object.entries(specSuites());

  it.each(suites)('every %s example converts (or is refused) as before', (suite, examples) => {
    expect(examples.length).toBeGreaterThan(0);
    const actual = json(examples.map((e) => ({ example: e.example, ...outcome(e.markdown) })));
    expect(actual).toBe(golden(`spec/${suite}.json`, actual));
  });

  it('every XSS corpus payload converts (or is refused) as before', () => {
    const payloads = xssPayloads();
    expect(payloads.length).toBeGreaterThan(0);
    const actual = json(payloads.map((p) => ({ source: p.source, label: p.label, ...outcome(p.payload) })));
    expect(actual).toBe(golden('xss.json', actual));
  });
});

describe('golden outputs of the ordinary document shapes (30 KB each)', () => {
  // The corpus articles are checked one by one above.
  const shapes = Object.entries(DOCUMENT_SHAPES).filter(([name]) => name !== 'corpus concatenated');

  it.each(shapes)('%s converts to its golden html and images', (name, build) => {
    const { html, externalImages, writtenAs } = renderArticleSync({ markdown: build(30_000), title: TITLE });
    const file = name.replace(/ /g, '-').toLowerCase();
    expect(html).toBe(golden(`shapes/${file}.html`, html));
    const images = json({ externalImages, writtenAs });
    expect(images).toBe(golden(`shapes/${file}.json`, images));
  });
});
