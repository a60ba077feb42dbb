/**
 * Per-paragraph counts for the pre-scan (prescan.ts), which keep conversion time close to
 * linear in the input size (doubling an input at most ~2.5x its time). micromark resolves
 * inline syntax once per paragraph, and three of its steps cost (count in the paragraph) x
 * (length of the paragraph):
 *
 * - emphasis (micromark-core-commonmark attention.js `resolveAllAttention`): every closing
 *   `*`/`_` run walks back over all earlier events looking for an opener (no "openers bottom"
 *   as in cmark), and every match splices the paragraph's event array and re-resolves the
 *   events between opener and closer; so mismatched openers/closers (`*a_ `), closers
 *   without openers (`a_ `) or just many pairs (`*a* `) are quadratic in one paragraph;
 * - link resources (label-end.js `tokenizeResource` -> micromark-factory-title): after `](`
 *   a title opened with `(` is scanned to the next `)` or the end of the paragraph, and each
 *   failed attempt is retried at the next `](` (`[ (](` repeated scans the rest of the
 *   paragraph once per repetition);
 * - label ends (label-end.js `tokenizeLabelEnd`): each `]` serializes its label from the open
 *   `[` to look it up among definitions, so `[` left open across a paragraph is paid for at
 *   every later `]`;
 * - bracket labels that do not become links (micromark lib/initialize/text.js `resolveAllText`):
 *   label-end.js turns their `[` and `]` into data after tokenizing, and the text resolver merges
 *   each such run of data with one `splice` of the paragraph's event array (`x [a] y` repeated:
 *   10,000 in a paragraph take 0.15 s, 20,000 take 2.5 s);
 * - footnote calls (micromark-extension-gfm-footnote `tokenizePotentialGfmFootnoteCall`, run
 *   at every `]`): walks back over the events to the nearest `[` or link, i.e. to the start of
 *   the paragraph when there is none (`a]` repeated).
 *
 * So per paragraph (a run of non-blank lines that is not fenced code or an HTML block) we
 * bound: emphasis delimiter runs that can open or close, open `[` (unmatched so far), `[ ]`
 * labels, the
 * characters the resource attempts would scan (sum over `](` of the distance to the next
 * unescaped `)`), and the characters the `]` walks would cover (sum over `]` of the distance
 * back to the previous `[`). With a constant per-paragraph cap the work is (cap) x (paragraph length),
 * linear in the document. The counts over-approximate micromark (code spans and raw HTML are
 * not excluded): over-counting can only refuse, never let a costly input through.
 */

export interface ParagraphLimits {
  delimiterRuns: number;
  openBrackets: number;
  /** `]` that close a `[` (labels, links or not). */
  labels: number;
  /** Resource scan allowed: `factor` x paragraph length + `slack` characters. */
  resourceScanFactor: number;
  resourceScanSlack: number;
}

export type ParagraphProblem = 'delimiterRuns' | 'openBrackets' | 'labels' | 'resourceScan' | 'closeScan';

const BACKSLASH = 0x5c;
const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const TILDE = 0x7e;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const PAREN_OPEN = 0x28;
const PAREN_CLOSE = 0x29;

const PUNCTUATION = /[\p{P}\p{S}]/u;

function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) ||
    (code >= 0x3a && code <= 0x40) ||
    (code >= 0x5b && code <= 0x60) ||
    (code >= 0x7b && code <= 0x7e)
  );
}

function isWhitespace(code: number): boolean {
  // NaN (outside the line) counts as whitespace, as a line ending does for micromark.
  return (
    Number.isNaN(code) ||
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0x0c ||
    code === 0xa0 ||
    (code > 0x7f && /\s/.test(String.fromCharCode(code)))
  );
}

function isAlphanumeric(code: number): boolean {
  return !isWhitespace(code) && !(code < 0x80 ? isAsciiPunctuation(code) : PUNCTUATION.test(String.fromCharCode(code)));
}

export class ParagraphCounter {
  private runs = 0;
  private depth = 0;
  private length = 0;
  private scan = 0;
  private pendingResources = 0;
  private pendingPositions = 0;
  private position = 0;
  private closeScan = 0;
  private lastOpen = 0;
  private labels = 0;

  constructor(private readonly limits: ParagraphLimits) {}

  get open(): boolean {
    return this.length > 0;
  }

  /** Counts one line (`source[start, end)`) of paragraph text; returns the first limit exceeded. */
  line(source: string, start: number, end: number): ParagraphProblem | undefined {
    for (let i = start; i < end; i++) {
      const code = source.charCodeAt(i);
      if (code === BACKSLASH) {
        if (i + 1 < end && isAsciiPunctuation(source.charCodeAt(i + 1))) i++;
        continue;
      }
      if (code === STAR || code === UNDERSCORE || code === TILDE) {
        let j = i + 1;
        while (j < end && source.charCodeAt(j) === code) j++;
        const before = i > start ? source.charCodeAt(i - 1) : Number.NaN;
        const after = j < end ? source.charCodeAt(j) : Number.NaN;
        // Neither opener nor closer: whitespace on both sides, or intraword `_`.
        const inert =
          (isWhitespace(before) && isWhitespace(after)) ||
          (code === UNDERSCORE && isAlphanumeric(before) && isAlphanumeric(after));
        if (!inert && ++this.runs > this.limits.delimiterRuns) return 'delimiterRuns';
        i = j - 1;
        continue;
      }
      if (code === OPEN) {
        if (++this.depth > this.limits.openBrackets) return 'openBrackets';
        this.lastOpen = this.position + (i - start);
      } else if (code === CLOSE) {
        if (this.depth > 0) {
          this.depth--;
          if (++this.labels > this.limits.labels) return 'labels';
        }
        this.closeScan += this.position + (i - start) - this.lastOpen;
        if (i + 1 < end && source.charCodeAt(i + 1) === PAREN_OPEN) {
          this.pendingResources++;
          this.pendingPositions += this.position + (i - start);
        }
      } else if (code === PAREN_CLOSE && this.pendingResources > 0) {
        this.settle(this.position + (i - start));
      }
    }
    this.position += end - start + 1;
    this.length += end - start + 1;
    if (this.closeScan > this.allowedScan()) return 'closeScan';
    return this.scanExceeded() ? 'resourceScan' : undefined;
  }

  /** Ends the paragraph (blank line, block boundary); returns a limit exceeded by its last line. */
  close(): ParagraphProblem | undefined {
    this.settle(this.position);
    const problem = this.scanExceeded() ? 'resourceScan' : undefined;
    this.runs = 0;
    this.depth = 0;
    this.length = 0;
    this.scan = 0;
    this.position = 0;
    this.closeScan = 0;
    this.lastOpen = 0;
    this.labels = 0;
    return problem;
  }

  /** Unresolved `](` attempts scan (at most) up to `at`. */
  private settle(at: number): void {
    this.scan += this.pendingResources * at - this.pendingPositions;
    this.pendingResources = 0;
    this.pendingPositions = 0;
  }

  /** Pending attempts are charged up to the current position too (they scan at least that far). */
  private scanExceeded(): boolean {
    const pending = this.pendingResources * this.position - this.pendingPositions;
    return this.scan + pending > this.allowedScan();
  }

  private allowedScan(): number {
    return this.limits.resourceScanFactor * this.length + this.limits.resourceScanSlack;
  }
}
