/**
 * Cheap first defence against adversarial Markdown: one linear pass that refuses
 * nesting the parser handles recursively or quadratically, before any parsing happens.
 * The general defence is the worker's time budget (pool.ts); this pass only turns the common
 * deep-nesting shapes into a precise message ("nesting too deep") in microseconds.
 *
 * Counted per line, outside fenced code and `<pre>` blocks:
 * - container markers at the start of a line (`>` and list markers, e.g. `> > - - x`) plus list
 *   indentation (two spaces per level before a list marker);
 * - open `[` brackets not yet closed on the same line (the nested/unclosed bracket patterns);
 * - runs of more than 200 `*` or `_` outside thematic breaks (200 delimiters = 100 levels).
 *
 * Counted per paragraph (paragraph-scan.ts: what micromark resolves in time (count) x (length)),
 * outside fenced code, `<pre>` and HTML blocks that start at column 0 (the service's own output):
 * - emphasis delimiter runs that can open or close, open `[` brackets, `[ ]` labels, and the characters link
 *   resource attempts (`](`) and `]` look-backs would scan (conversion-bounds.ts PARAGRAPH_LIMITS).
 *
 * Which block a line starts (HTML block, table row, bullet item…) is decided in prescan-lines.ts.
 */
import { ContentRejectedError, REJECT } from './errors';
import { MAX_NESTING, PARAGRAPH_LIMITS } from './conversion-bounds';
import { ParagraphCounter, type ParagraphLimits, type ParagraphProblem } from './paragraph-scan';
import {
  BULLET_ITEM,
  isBlankLine,
  isPlainTableRow,
  isTableDelimiterRow,
  isThematicBreak,
  opensPreBlock,
  startsHtmlBlock,
  tableCells,
} from './prescan-lines';

const SPACE = 0x20;
const TAB = 0x09;
const GT = 0x3e;
const LT = 0x3c;
const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

function isListBullet(code: number): boolean {
  return code === 0x2d || code === 0x2a || code === 0x2b; // - * +
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Container depth at the start of `line` (from `start` to `end`). */
function containerDepth(source: string, start: number, end: number): number {
  let i = start;
  let indent = 0;
  while (i < end && (source.charCodeAt(i) === SPACE || source.charCodeAt(i) === TAB)) {
    indent += source.charCodeAt(i) === TAB ? 4 : 1;
    i++;
  }
  let markers = 0;
  let sawList = false;
  while (i < end) {
    const code = source.charCodeAt(i);
    if (code === GT) {
      markers++;
      i++;
    } else if (
      isListBullet(code) &&
      (i + 1 === end || source.charCodeAt(i + 1) === SPACE || source.charCodeAt(i + 1) === TAB)
    ) {
      markers++;
      sawList = true;
      i++;
    } else if (isDigit(code)) {
      let j = i;
      while (j < end && j - i < 9 && isDigit(source.charCodeAt(j))) j++;
      const delimiter = source.charCodeAt(j);
      if ((delimiter === 0x2e || delimiter === 0x29) && (j + 1 === end || source.charCodeAt(j + 1) === SPACE)) {
        markers++;
        sawList = true;
        i = j + 1;
      } else break;
    } else break;
    while (i < end && (source.charCodeAt(i) === SPACE || source.charCodeAt(i) === TAB)) i++;
  }
  return markers + (sawList ? Math.floor(indent / 2) : 0);
}

/**
 * Deepest `[` nesting within the line (escaped brackets ignored, reset at `<`), and the longest
 * run of one emphasis delimiter (`*`, `_`): a run of n delimiters can open n/2 nested
 * emphasis levels, which the emphasis resolver handles in quadratic time.
 */
function inlineDepth(source: string, start: number, end: number): { brackets: number; delimiterRun: number } {
  let depth = 0;
  let brackets = 0;
  let run = 0;
  let runChar = 0;
  let delimiterRun = 0;
  for (let i = start; i < end; i++) {
    const code = source.charCodeAt(i);
    if (code === STAR || code === UNDERSCORE) {
      run = code === runChar ? run + 1 : 1;
      runChar = code;
      if (run > delimiterRun) delimiterRun = run;
      continue;
    }
    runChar = 0;
    if (code === BACKSLASH) i++;
    else if (code === LT)
      depth = 0; // a tag boundary (tables and islands are one line in our own output)
    else if (code === OPEN) {
      depth++;
      if (depth > brackets) brackets = depth;
    } else if (code === CLOSE && depth > 0) depth--;
  }
  return { brackets, delimiterRun };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Next index of `token` at or after `from`; calls must not go backwards (keeps the scan linear). */
function forwardSearch(source: string, token: string): (from: number) => number {
  let next = source.indexOf(token);
  return (from) => {
    if (next !== -1 && next < from) next = source.indexOf(token, from);
    return next;
  };
}

function paragraphRejection(problem: ParagraphProblem, limits: ParagraphLimits): string {
  if (problem === 'delimiterRuns') return REJECT.paragraphDelimiters(limits.delimiterRuns);
  if (problem === 'openBrackets') return REJECT.paragraphBrackets(limits.openBrackets);
  if (problem === 'labels') return REJECT.paragraphLabels(limits.labels);
  if (problem === 'closeScan') return REJECT.paragraphCloseBrackets(limits.resourceScanFactor);
  return REJECT.paragraphResources(limits.resourceScanFactor);
}

export function assertNestingWithinLimit(
  markdown: string,
  limit = MAX_NESTING,
  limits: ParagraphLimits = PARAGRAPH_LIMITS,
): void {
  const paragraph = new ParagraphCounter(limits);
  const check = (problem: ParagraphProblem | undefined) => {
    if (problem) throw new ContentRejectedError(paragraphRejection(problem, limits));
  };
  let inHtml = false; // inside an HTML block (types 6/7) that started at column 0
  let inTable = false; // inside a GFM table: each cell is its own inline context
  let lineStart = -1; // previous line of the current paragraph (a table header candidate)
  let lineEnd = -1;
  let preCounted = false; // inside a `<pre` the parser may read as inline HTML: its lines still count
  const nextPreOpen = forwardSearch(markdown, '<pre');
  const nextPreClose = forwardSearch(markdown, '</pre>');
  let fence: string | undefined;
  let inPre = false; // inside an HTML <pre> (the service's own output sent back)
  let start = 0;
  while (start <= markdown.length) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const firstChar = markdown.charCodeAt(start);
    if (!inPre && (firstChar === 0x60 || firstChar === 0x7e || firstChar === SPACE)) {
      const match = FENCE.exec(markdown.slice(start, Math.min(end, start + 64)));
      if (match) {
        const marker = match[1]!;
        if (fence === undefined) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
        check(paragraph.close());
        inHtml = false;
        start = end + 1;
        continue;
      }
    }
    if (fence !== undefined) {
      start = end + 1;
      continue;
    }
    if (inPre) {
      if (preCounted) {
        if (isBlankLine(markdown, start, end)) check(paragraph.close());
        else check(paragraph.line(markdown, start, end));
      }
      const close = nextPreClose(start);
      if (close !== -1 && close < end) inPre = false;
      start = end + 1;
      continue;
    }
    // Text after a `<pre` that opens an HTML block (at the line start or right after another
    // tag, as in the service's own output) is code, not Markdown: it is not counted.
    let firstOpen = -1;
    let lastOpen = -1;
    for (let open = nextPreOpen(start); open !== -1 && open < end; open = nextPreOpen(open + 1)) {
      if (!opensPreBlock(markdown, start, open)) continue;
      if (firstOpen === -1) firstOpen = open;
      lastOpen = open;
    }
    const counted = firstOpen === -1 ? end : firstOpen;
    if (containerDepth(markdown, start, counted) > limit && !isThematicBreak(markdown, start, end)) {
      throw new ContentRejectedError(REJECT.nesting('block quotes or lists', limit));
    }
    const inline = inlineDepth(markdown, start, counted);
    if (inline.brackets > limit) {
      throw new ContentRejectedError(REJECT.nesting('[ brackets', limit));
    }
    if (inline.delimiterRun > 2 * limit && !isThematicBreak(markdown, start, end)) {
      throw new ContentRejectedError(REJECT.delimiterRun(2 * limit));
    }
    if (isBlankLine(markdown, start, end)) {
      check(paragraph.close());
      inHtml = false;
      inTable = false;
      lineStart = -1;
    } else if (!inHtml) {
      if (inTable && !(counted === end && isPlainTableRow(markdown, start, end))) inTable = false;
      if (startsHtmlBlock(markdown, start, end, paragraph.open)) {
        check(paragraph.close());
        inHtml = true;
        inTable = false;
      } else if (inTable || (counted === end && isTableDelimiterRow(markdown, start, end, lineStart, lineEnd))) {
        inTable = true;
        for (const [a, b] of tableCells(markdown, start, end)) {
          check(paragraph.close());
          check(paragraph.line(markdown, a, b));
        }
        check(paragraph.close());
      } else {
        if (paragraph.open && BULLET_ITEM.test(markdown.slice(start, Math.min(end, start + 16))))
          check(paragraph.close());
        check(paragraph.line(markdown, start, counted));
        lineStart = start;
        lineEnd = counted;
      }
    }
    if (lastOpen !== -1) {
      const close = nextPreClose(lastOpen);
      inPre = close === -1 || close >= end;
      // A `<pre` at column 0 or inside an HTML block is raw HTML to its `</pre>`; elsewhere it may
      // be inline HTML in a paragraph whose Markdown goes on, so those lines are still counted.
      const trusted = inHtml || firstOpen === start;
      preCounted = inPre && !trusted;
      if (trusted) check(paragraph.close());
      inTable = false;
      lineStart = -1;
    }
    start = end + 1;
  }
  check(paragraph.close());
}
