/**
 * CommonMark 0.31.2 and GFM 0.29 spec examples, commonmark.js regressions (corpus markdown/).
 * Each example's Markdown must render like its reference HTML once the contract's deliberate
 * differences are applied to the reference (see spec-compare.ts). Measured:
 *
 *   commonmark-spec           645 / 652 agree
 *   gfm-spec                  661 / 671 agree (2 `disabled` examples skipped, as upstream does)
 *   gfm-extensions             25 / 28  agree
 *   commonmark-js-regression   30 / 35  agree
 *
 * Every remaining difference is listed below with its reason; a difference not listed fails.
 */
import { describe, expect, it } from 'vitest';
import { specSuites } from './corpus';
import { agreesWithReference } from './spec-compare';

const PARSER = 'parser difference (micromark/remark vs the reference C/JS implementation)';
const ARTEFACT =
  'comparison artefact: the reference HTML has blank lines or text that is not valid input when read back as Markdown';

const KNOWN_DIFFERENCES: Record<string, Record<number, string>> = {
  'commonmark-spec': {
    39: `${ARTEFACT} (&#10; entities become a paragraph break)`,
    127: 'the HTML parser drops the line feed right after <pre> (server/content/raw-html.ts keeps that without the parser): a leading blank line inside fenced code is dropped',
    264: `${ARTEFACT} (blank lines inside <pre> in a list)`,
    318: `${ARTEFACT} (blank lines inside <pre> in a list)`,
    602: 'remark-gfm autolink literals (GFM) link URLs that plain CommonMark leaves as text',
    608: 'remark-gfm autolink literals (GFM) link URLs that plain CommonMark leaves as text',
    611: 'remark-gfm autolink literals (GFM) link URLs that plain CommonMark leaves as text',
  },
  'gfm-spec': {
    97: 'the HTML parser drops the line feed right after <pre> (server/content/raw-html.ts keeps that without the parser): a leading blank line inside fenced code is dropped',
    242: `${ARTEFACT} (blank lines inside <pre> in a list)`,
    298: `${ARTEFACT} (blank lines inside <pre> in a list)`,
    335: `${ARTEFACT} (&#10; entities become a paragraph break)`,
    610: 'remark-gfm autolink literals link a URL inside <…> text that the reference leaves as text',
    616: 'remark-gfm autolink literals link a URL inside <…> text that the reference leaves as text',
    619: 'remark-gfm autolink literals link a URL inside <…> text that the reference leaves as text',
    645: `${PARSER}: CommonMark 0.31 comment syntax (micromark) vs GFM 0.29 (comments with --); comments are removed`,
    646: `${PARSER}: CommonMark 0.31 comment syntax (micromark) vs GFM 0.29 (comments with --); comments are removed`,
    653: 'our sanitization is stricter than the GFM tagfilter: <title>, <style>, <xmp> are dropped with their content, not escaped',
  },
  'gfm-extensions': {
    20: 'upstream crash test whose reference output is empty',
    22: 'our sanitization is stricter than the GFM tagfilter: <xmp>, <textarea> are dropped with their content, not escaped',
    23: 'remark-gfm footnote markup (adds a "Footnotes" heading) differs from cmark-gfm',
  },
  'commonmark-js-regression': {
    6: `${PARSER}: emphasis delimiter resolution for a***b* c*`,
    19: `${PARSER}: where a <script> HTML block inside a list item ends (both outputs are script-free)`,
    25: `${ARTEFACT} (blank lines inside <pre> in a list)`,
    28: `${PARSER}: commonmark.js strips a language- prefix from the info string`,
    34: `${PARSER}: Unicode punctuation class of astral-plane symbols for emphasis flanking`,
  },
};

describe("spec corpus (CommonMark / GFM) after the contract's deliberate differences", () => {
  for (const [suite, examples] of Object.entries(specSuites())) {
    const considered = examples.filter((e) => !e.extensions?.includes('disabled'));
    const known = KNOWN_DIFFERENCES[suite] ?? {};
    const expectedAgreeing = considered.filter((e) => !(e.example in known)).length;
    it(`${suite}: ${expectedAgreeing} of ${considered.length} examples agree with the reference; the others are known differences`, () => {
      const unexpected: number[] = [];
      let agreeing = 0;
      for (const example of considered) {
        const agrees = agreesWithReference(example.markdown, example.html);
        if (agrees) agreeing++;
        else if (!(example.example in known)) unexpected.push(example.example);
      }
      expect(unexpected, `examples differing for an unrecorded reason`).toEqual([]);
      expect(agreeing).toBeGreaterThanOrEqual(expectedAgreeing);
    });
  }
});
