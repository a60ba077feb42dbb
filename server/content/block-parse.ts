/**
 * The Markdown parse, block by block, reusing the blocks an account's recent conversions already
 * parsed. Same tree as parsing the whole document, positions included, for every input
 * (tests/unit/content/block-parse.test.ts compares the two over the CommonMark and GFM spec
 * examples, the corpus articles and generated documents).
 *
 * Why: parsing (micromark and mdast) is about 85 % of a conversion, and an edit usually changes
 * one paragraph of an article whose other paragraphs were parsed when it was last written. With
 * the unchanged blocks taken from here, `PATCH` parses only what the edit touched.
 *
 * Where a document may be cut: before a line that starts in column 1 with neither a space nor a
 * list marker, right after a blank line, outside fenced code. No CommonMark or GFM block stays
 * open across such a line:
 * - a paragraph, table, HTML block of kinds 6 and 7, or block quote ends at the blank line;
 * - a list (and everything in its items) ends at a line that is neither indented to its items
 *   nor a list item (so no cut before a list marker: it would continue the list);
 * - indented code ends at a line that is not indented.
 * So the text after the cut parses alone as it does in place, and so does the text before it.
 * What is left are the constructs that do cross blank lines, and a document that has one is
 * parsed whole (`blockStarts` returns null):
 * - link reference and footnote definitions (`]:`): they change how every other block parses;
 * - HTML blocks of kinds 1 to 5 (`<pre`, `<script`, `<style`, `<textarea`, `<!`, `<?`), which
 *   run to their end marker;
 * - fenced code, tracked here when its fence starts in column 1 (it runs to its closing fence)
 *   or in a block quote (it ends with the quote, at a blank line). A fence in a list item, or
 *   indented, could stay open over the blank lines before a cut, and ends before them in place
 *   but after them when parsed alone, so such a document is parsed whole; and so is a document
 *   with both fences and lines starting with `<` (a fence line inside an HTML block is text).
 *
 * Parsing in parts (parse-in-parts.ts) also cuts between the items of a top-level list
 * (`cutPoints`, which says when): the cache does not, as a list cut there would be filed in pieces.
 *
 * These rules hold for CommonMark with GFM and nothing else: another syntax extension may keep a
 * block open across such a line (math blocks, directives, front matter). So the parse is handed
 * the pipeline's list of syntax extensions (pipeline.ts `MARKDOWN_SYNTAX_EXTENSIONS`) and cuts
 * nothing unless it is exactly CUT_RULES_SYNTAX, the list these rules were written for: a change
 * there makes every document parse whole (slower, never wrong) until the rules are checked again
 * and this list follows.
 *
 * The cache is per worker thread and keyed by account as well as text: whether a paragraph was
 * parsed recently shows in a conversion's time, and one account must not learn that of another's.
 * It holds at most BLOCK_CACHE_CHARS of source (least recently used goes first); its trees take
 * about 13 bytes per source character.
 */
import type { Root, RootContent } from 'mdast';
import { BLOCK_CACHE_CHARS, BLOCK_CACHE_MAX_BLOCK_CHARS } from './conversion-bounds';

/** The syntax extensions (on remark-parse's CommonMark), by name, that the cut rules were written for. */
const CUT_RULES_SYNTAX: readonly string[] = ['remark-gfm'];

/** Whether `syntax` (a parser's extensions, by name, in order) is the one the cut rules were written for. */
export const cutRulesHold = (syntax: readonly { name: string }[]) =>
  syntax.length === CUT_RULES_SYNTAX.length && syntax.every(({ name }, i) => name === CUT_RULES_SYNTAX[i]);

/** Kinds 1 to 5 of CommonMark's HTML blocks start like this; the test errs on the side of finding one. */
const HTML_BLOCK_TO_END_MARKER = /<(?:pre|script|style|textarea)(?:[\s>]|$)|<[!?]/i;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
/** A fence after any indentation and container markers (`>`, list markers): the fence may be anywhere. */
const FENCE_ANYWHERE = /^[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)*(?:`{3}|~{3})/;
const FENCE_AT_COLUMN_1 = /^(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const BLANK = /^[ \t]*$/;
const HTML_LINE = /^ {0,3}</;
const QUOTED = /^ {0,3}>/;
/** A list item's first line in column 1: marker, spaces after it, the rest. */
const LIST_ITEM = /^([-*+]|\d{1,9}[.)])([ ]*)(.*)$/;
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** Indented by four columns or more: indented code, at the top level. */
const INDENTED = /^(?: {4}| {0,3}\t)/;

/**
 * Offsets where the document may be cut (the first is 0), or null when it must be parsed whole
 * (see the header).
 */
export function blockStarts(markdown: string): number[] | null {
  return cutPoints(markdown)?.blocks ?? null;
}

/**
 * The cuts of `blockStarts` (`blocks`), and besides them (`listItems`) the starts of the items of
 * a top-level list that the scan can follow line by line: a list item in column 1 right after a
 * line that is not blank, of the same list (same bullet, or same delimiter after the number) as
 * an item started earlier (at the start, after a blank line, or at such a cut), with every line
 * since then blank or indented to that item's content (spaces only). Such a line always starts a
 * sibling item (micromark's list continuation tries a new item of the same list before anything
 * else, and interruption rules do not apply to it), so the text from there parses alone as a
 * list of the remaining items, and the text before as the list up to there: parse-in-parts.ts
 * joins the two lists. Not after a blank line: that makes the list loose, which neither part
 * would know. A list is not followed from a line after blank lines that come after an indented
 * line (four columns or more): micromark keeps indented code open over the blank lines in case it
 * goes on, and so treats that line as interrupting it, where `2.` starts no list (only `1.` may
 * interrupt) and the line is a paragraph. Never in the middle of the lines a list item may be
 * continued by lazily (a line in column 1 that is not an item ends the tracking), nor after an
 * item that starts with a blank line (it may end at the next blank line), nor where a tab makes
 * columns uncertain.
 */
export function cutPoints(markdown: string): { blocks: number[]; listItems: number[] } | null {
  // Line endings other than `\n` are normalized before (prepare.ts); a `\r` here is not expected.
  if (markdown.includes(']:') || markdown.includes('\r') || HTML_BLOCK_TO_END_MARKER.test(markdown)) return null;
  const starts = [0];
  const listItems: number[] = [];
  let fence: { char: string; length: number } | null = null;
  let afterBlank = false;
  /** Whether the last line that was not blank was indented (maybe indented code, still open after blank lines). */
  let afterIndented = false;
  let sawFence = false;
  let sawHtml = false;
  /** The top-level list the scan follows: its marker, and the content column of its current item. */
  let list: { kind: string; indent: number } | null = null;
  for (let start = 0; start < markdown.length;) {
    const newline = markdown.indexOf('\n', start);
    const end = newline === -1 ? markdown.length : newline;
    const line = markdown.slice(start, end);
    const lineStart = start;
    start = end + 1;
    if (fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      afterBlank = false;
      continue;
    }
    if (BLANK.test(line)) {
      afterBlank = true;
      continue;
    }
    const first = line.charCodeAt(0);
    const mayStartList = !(afterBlank && afterIndented);
    if (list) list = followList(list, line, lineStart, afterBlank, listItems, mayStartList);
    else if (lineStart === 0 || (afterBlank && mayStartList)) list = listStartedBy(line);
    afterIndented = INDENTED.test(line);
    // Not before a byte order mark either: the parser drops one at the start of its text only.
    if (afterBlank && first !== 0x20 && first !== 0x09 && first !== 0xfeff && !LIST_MARKER.test(line) && lineStart > 0)
      starts.push(lineStart);
    afterBlank = false;
    if (HTML_LINE.test(line)) sawHtml = true;
    if (!FENCE_ANYWHERE.test(line)) continue;
    sawFence = true;
    const opening = FENCE_AT_COLUMN_1.exec(line);
    if (opening) {
      const marker = opening[1]!;
      // A backtick fence's info string has no backtick; with one, the line is text.
      if (marker[0] === '~' || !opening[2]!.includes('`')) fence = { char: marker[0]!, length: marker.length };
      continue;
    }
    // In a block quote the fence ends with the quote, at the blank line before the next cut.
    if (QUOTED.test(line)) continue;
    // In a list item it does not: the item goes on over blank lines, and a fence still open
    // there ends where the item does (before the blank lines) in place but after them alone.
    return null;
  }
  return sawFence && sawHtml ? null : { blocks: starts, listItems };
}

/**
 * The list a line in column 1 starts an item of (at the start of the text or after a blank line,
 * where such a line always starts one), or null: not an item, a thematic break (which wins over
 * an item), an item whose first line is blank or whose marker is followed by a tab.
 */
function listStartedBy(line: string): { kind: string; indent: number } | null {
  const item = LIST_ITEM.exec(line);
  if (!item || THEMATIC_BREAK.test(line)) return null;
  const [, marker, spaces, content] = item;
  // No space after the marker: not an item (`-x`), or a tab or nothing after it.
  if (spaces === '' || content === '' || content!.startsWith('\t')) return null;
  // One to four spaces after the marker belong to it; with five or more, one does and the rest
  // make the item's content indented code.
  const indent = marker!.length + (spaces!.length <= 4 ? spaces!.length : 1);
  return { kind: marker!.slice(-1), indent };
}

/**
 * The followed list after a non-blank line; notes the line's start in `cuts` when it starts a
 * sibling item. `mayStartList`: whether a line that starts another list is followed (not after
 * blank lines that may still be indented code: see `cutPoints`).
 */
function followList(
  list: { kind: string; indent: number },
  line: string,
  lineStart: number,
  afterBlank: boolean,
  cuts: number[],
  mayStartList: boolean,
): { kind: string; indent: number } | null {
  const first = line.charCodeAt(0);
  if (first === 0x20) {
    let lead = 1;
    while (line.charCodeAt(lead) === 0x20) lead++;
    return lead >= list.indent && line.charCodeAt(lead) !== 0x09 ? list : null;
  }
  const next = listStartedBy(line);
  if (!next || next.kind !== list.kind) return afterBlank && mayStartList ? next : null;
  if (!afterBlank) cuts.push(lineStart);
  return next;
}

interface Point {
  line: number;
  column: number;
  offset?: number;
}

/**
 * A deep copy of mdast nodes (plain objects, arrays and primitives) with every position moved by
 * `lines` and `offset`: cached trees are never handed out, since the pipeline changes the tree.
 */
function copyMoved<T>(value: T, lines: number, offset: number): T {
  if (Array.isArray(value)) return value.map((item) => copyMoved(item, lines, offset)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      key === 'position' && item
        ? movedPosition(item as { start: Point; end: Point }, lines, offset)
        : copyMoved(item, lines, offset);
  }
  return out as T;
}

/** Moves the positions of freshly parsed nodes (new position objects: points may be shared). */
export function moveInPlace(value: unknown, lines: number, offset: number): void {
  if (Array.isArray(value)) {
    for (const item of value) moveInPlace(item, lines, offset);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const node = value as Record<string, unknown>;
  for (const key of Object.keys(node)) {
    const item = node[key];
    if (key === 'position' && item) node[key] = movedPosition(item as { start: Point; end: Point }, lines, offset);
    else moveInPlace(item, lines, offset);
  }
}

function movedPosition(position: { start: Point; end: Point }, lines: number, offset: number) {
  const move = (point: Point): Point =>
    point.offset === undefined
      ? { line: point.line + lines, column: point.column }
      : { line: point.line + lines, column: point.column, offset: point.offset + offset };
  return { start: move(position.start), end: move(position.end) };
}

export function endPoint(text: string): Point {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return { line: lines, column: text.length - text.lastIndexOf('\n'), offset: text.length };
}

interface Block {
  start: number;
  end: number;
  /** Lines before the block's first line. */
  lineBefore: number;
  key: string;
  /** The block's top-level nodes, positions relative to its start (as if parsed alone). */
  nodes?: RootContent[];
}

/** Source characters taken from the cache and parsed, since the cache was made. */
export interface BlockParseCounts {
  reused: number;
  parsed: number;
}

export class BlockParseCache {
  /** Insertion order is recency: a hit is moved to the end, the front is evicted first. */
  private readonly entries = new Map<string, RootContent[]>();
  private chars = 0;
  readonly counts: BlockParseCounts = { reused: 0, parsed: 0 };

  constructor(
    private readonly maxChars = BLOCK_CACHE_CHARS,
    private readonly maxBlockChars = BLOCK_CACHE_MAX_BLOCK_CHARS,
  ) {}

  /**
   * `markdown` parsed by `parse` (which parses a whole text), as `parse(markdown)` would give it,
   * with the blocks `scope` (an account) had parsed recently taken from the cache. `syntax` is
   * `parse`'s syntax extensions (pipeline.ts `MARKDOWN_SYNTAX_EXTENSIONS`): unless it is the list
   * the cut rules were written for, the document is parsed whole.
   */
  parse(markdown: string, scope: string, parse: (text: string) => Root, syntax: readonly { name: string }[]): Root {
    const starts = cutRulesHold(syntax) ? blockStarts(markdown) : null;
    if (!starts || starts.length < 2) {
      this.counts.parsed += markdown.length;
      return parse(markdown);
    }
    const blocks: Block[] = [];
    let lineBefore = 0;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      const end = starts[i + 1] ?? markdown.length;
      const text = markdown.slice(start, end);
      const key = `${scope}\u0000${text}`;
      blocks.push({ start, end, lineBefore, key, nodes: this.take(key) });
      lineBefore += endPoint(text).line - 1;
    }
    const children: RootContent[] = [];
    for (let i = 0; i < blocks.length;) {
      const block = blocks[i]!;
      if (block.nodes) {
        this.counts.reused += block.end - block.start;
        children.push(...copyMoved(block.nodes, block.lineBefore, block.start));
        i++;
        continue;
      }
      // A run of blocks not in the cache is parsed as one text: each parse has a fixed cost of
      // a few hundred microseconds, more than a short paragraph's own.
      let last = i;
      while (last + 1 < blocks.length && !blocks[last + 1]!.nodes) last++;
      this.counts.parsed += blocks[last]!.end - block.start;
      const run = parse(markdown.slice(block.start, blocks[last]!.end));
      this.rememberRun(blocks.slice(i, last + 1), run.children, block);
      moveInPlace(run.children, block.lineBefore, block.start);
      children.push(...run.children);
      i = last + 1;
    }
    return {
      type: 'root',
      children,
      position: { start: { line: 1, column: 1, offset: 0 }, end: endPoint(markdown) },
    } as Root;
  }

  /** Files each top-level node of a run's parse under the block it starts in. */
  private rememberRun(blocks: Block[], nodes: RootContent[], runStart: Block) {
    let b = 0;
    let filed: RootContent[] = [];
    const file = () => {
      const block = blocks[b]!;
      this.put(block.key, copyMoved(filed, runStart.lineBefore - block.lineBefore, runStart.start - block.start));
      filed = [];
    };
    for (const node of nodes) {
      const at = (node.position?.start.offset ?? 0) + runStart.start;
      while (b + 1 < blocks.length && at >= blocks[b + 1]!.start) {
        file();
        b++;
      }
      filed.push(node);
    }
    for (; b < blocks.length; b++) file();
  }

  private take(key: string): RootContent[] | undefined {
    const nodes = this.entries.get(key);
    if (nodes) {
      this.entries.delete(key);
      this.entries.set(key, nodes);
    }
    return nodes;
  }

  private put(key: string, nodes: RootContent[]) {
    if (key.length > this.maxBlockChars || this.entries.has(key)) return;
    this.entries.set(key, nodes);
    this.chars += key.length;
    for (const oldest of this.entries.keys()) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
  }
}
