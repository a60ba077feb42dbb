/**
 * Round trip: the `html` the service returns, sent back as `markdown`, converts to the
 * same `html`. Proven over documents generated from the body-format grammar (islands included)
 * and over every corpus case: articles, spec examples, XSS payloads.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ContentRejectedError, renderArticleSync } from '../../../server/content';
import { articles, specSuites, xssPayloads } from './corpus';
import { articleMarkdown, articleTitle } from './grammar';

/** Renders twice; returns undefined when the document is refused (refusal is a valid answer). */
function roundTrip(markdown: string, title = 'Title'): { first: string; second: string } | undefined {
  let first: string;
  try {
    first = renderArticleSync({ markdown, title }).html;
  } catch (error) {
    if (error instanceof ContentRejectedError) return undefined;
    throw error;
  }
  return { first, second: renderArticleSync({ markdown: first, title }).html };
}

describe('round trip: rendering the output again gives the same output', () => {
  it('holds for generated documents (fast-check, grammar with islands)', () => {
    fc.assert(
      fc.property(articleMarkdown, articleTitle, (markdown, title) => {
        const result = roundTrip(markdown, title);
        if (result) expect(result.second).toBe(result.first);
      }),
      { numRuns: 600 },
    );
  });

  it('holds for generated documents concatenated without blank lines between blocks', () => {
    fc.assert(
      fc.property(fc.array(articleMarkdown, { minLength: 2, maxLength: 4 }), (parts) => {
        const result = roundTrip(parts.join('\n'));
        if (result) expect(result.second).toBe(result.first);
      }),
      { numRuns: 200 },
    );
  });

  it.each(articles().map((a) => [a.name, a.markdown]))('holds for article %s', (_name, markdown) => {
    const result = roundTrip(markdown);
    expect(result).toBeDefined();
    expect(result!.second).toBe(result!.first);
  });

  for (const [suite, examples] of Object.entries(specSuites())) {
    it(`holds for every ${suite} example (${examples.length})`, () => {
      for (const example of examples) {
        const result = roundTrip(example.markdown);
        if (result) expect(result.second, `${suite} #${example.example}`).toBe(result.first);
      }
    });
  }

  it('holds for every XSS corpus payload', () => {
    for (const { source, label, payload } of xssPayloads()) {
      const result = roundTrip(payload);
      if (result) expect(result.second, `${source} ${label}`).toBe(result.first);
    }
  });

  it('keeps rehosted sources stable when the output is rendered with the same map', () => {
    const rehosted = { 'https://img.example.com/a.png': '/api/media/0f8fad5b-d9cb-469f-a165-70867728950e' };
    const first = renderArticleSync({ markdown: '![a](https://img.example.com/a.png)', title: 'T', rehosted }).html;
    expect(renderArticleSync({ markdown: first, title: 'T', rehosted }).html).toBe(first);
    expect(renderArticleSync({ markdown: first, title: 'T' }).html).toBe(first);
  });
});
