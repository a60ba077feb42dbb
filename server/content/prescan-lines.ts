/**
 * What kind of line the pre-scan (prescan.ts) is looking at: the start of an HTML block, a GFM
 * table's delimiter row or one of its rows, a thematic break, a bullet item, a blank line, a
 * `<pre` that opens raw HTML. Each test is linear in the line, and errs on the side that makes
 * the pre-scan count more (counting too much can only refuse, never let a costly input through).
 */
import { htmlBlockNames, htmlRawNames } from 'micromark-util-html-tag-name';

const SPACE = 0x20;
const TAB = 0x09;
const GT = 0x3e;
const LT = 0x3c;
const BACKSLASH = 0x5c;

/** `***…`, `___…` (with spaces) is a thematic break, not emphasis. */
export function isThematicBreak(source: string, start: number, end: number): boolean {
  const line = source.slice(start, end).replace(/[ \t]/g, '');
  return line.length >= 3 && /^(\*+|_+|-+)$/.test(line);
}

export function opensPreBlock(source: string, lineStart: number, open: number): boolean {
  const before = source.charCodeAt(open - 1);
  if (open === lineStart || before === GT) return true;
  return open - lineStart <= 3 && source.slice(lineStart, open).trim() === '';
}

// CommonMark HTML block types 6 (block names) and 1 (raw names), as micromark lists them.
const HTML_BLOCK_NAMES = new Set(htmlBlockNames);
const HTML_RAW_NAMES = new Set(htmlRawNames);
const TAG_START = /^<\/?([A-Za-z][A-Za-z0-9-]*)(\s|\/?>|$)/;
const COMPLETE_TAG_LINE =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*$/;

/**
 * Whether the line starts an HTML block of type 6 (block tag name) or 7 (one complete tag alone
 * on the line, which cannot interrupt a paragraph), ending at the next blank line. Only lines
 * starting at column 0: such a line is never inside a list item or block quote, so the block
 * really lasts until a blank line (an indented one might be closed earlier by its container, and
 * text after it would be parsed as Markdown while this scan skipped it).
 */
export function startsHtmlBlock(source: string, start: number, end: number, inParagraph: boolean): boolean {
  if (source.charCodeAt(start) !== LT) return false;
  const head = TAG_START.exec(source.slice(start, Math.min(end, start + 64)));
  if (!head) return false;
  const name = head[1]!.toLowerCase();
  if (HTML_BLOCK_NAMES.has(name)) {
    const after = head[2]!;
    return after === '' || after === '>' || after === '/>' || /^\s$/.test(after);
  }
  if (inParagraph || HTML_RAW_NAMES.has(name) || end - start > 10_000) return false;
  return COMPLETE_TAG_LINE.test(source.slice(start, end));
}

const PIPE = 0x7c;

/** Cells of a table row, split at unescaped `|` (a leading and a trailing pipe open/close the row). */
export function tableCells(source: string, start: number, end: number): [number, number][] {
  const cells: [number, number][] = [];
  let cellStart = start;
  for (let i = start; i < end; i++) {
    const code = source.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === PIPE) {
      cells.push([cellStart, i]);
      cellStart = i + 1;
    }
  }
  cells.push([cellStart, end]);
  const blank = ([a, b]: [number, number]) => source.slice(a, b).trim() === '';
  if (cells.length > 1 && blank(cells[0]!)) cells.shift();
  if (cells.length > 1 && blank(cells[cells.length - 1]!)) cells.pop();
  return cells;
}

const DELIMITER_CELL = /^\s*:?-+:?\s*$/;

/** A GFM delimiter row (`| --- | :-: |`) with as many cells as the header row above it. */
export function isTableDelimiterRow(
  source: string,
  start: number,
  end: number,
  headerStart: number,
  headerEnd: number,
): boolean {
  if (headerStart < 0 || end - start > 10_000 || !source.slice(start, end).includes('-')) return false;
  const cells = tableCells(source, start, end);
  if (!cells.every(([a, b]) => DELIMITER_CELL.test(source.slice(a, b)))) return false;
  if (cells.length === 1 && !source.slice(start, end).includes('|')) return false;
  return tableCells(source, headerStart, headerEnd).length === cells.length;
}

/**
 * Whether a line may continue a table as a row: GFM ends a table at a blank line or at another
 * block structure; any line that could start one (or has no `|`) ends table mode here, so its
 * text is counted as paragraph text (over-counting is safe, under-counting would not be).
 */
export function isPlainTableRow(source: string, start: number, end: number): boolean {
  if (source.indexOf('|', start) === -1 || source.indexOf('|', start) >= end) return false;
  const first = source.charCodeAt(start);
  if (first === SPACE || first === TAB) return false;
  return !/^(?:[>#<`~=]|[-*+_](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-*_][ \t]*[-*_][ \t]*[-*_])/.test(
    source.slice(start, Math.min(end, start + 16)),
  );
}

/**
 * A bullet list item with content (`- x`, `* x`, `+ x` after at most 3 spaces) always starts a
 * new block, interrupting any paragraph (CommonMark "List items"), so it starts a new paragraph
 * count: long link lists are many paragraphs to micromark, not one.
 */
export const BULLET_ITEM = /^ {0,3}[-*+][ \t]+\S/;

export function isBlankLine(source: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = source.charCodeAt(i);
    if (code !== SPACE && code !== TAB && code !== GT) return false;
  }
  return true;
}
