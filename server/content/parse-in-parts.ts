/**
 * One large document's Markdown parse in parts that separate threads parse at once, joined into
 * the tree the whole parse gives, positions included (line, column and offset of every node).
 * Planning and joining only; which thread parses which part is parallel-parse.ts's business.
 *
 * Why: a conversion is mostly its parse (micromark and mdast: two thirds of the CPU time), and a
 * document of a couple of MB takes a worker for many seconds; parsed in parts by several
 * workers it takes a fraction of that wall-clock time, with the same output.
 *
 * Where: at the cuts block-parse.ts knows to be safe (`cutPoints`): after blank lines, where no
 * block stays open, and between the items of a top-level list that the scan can follow (a
 * document that is one long list, or one with a long list, is cut there too). A part parsed alone
 * gives the top-level nodes it gives in place; at a cut between list items the part before ends
 * with the list and the part after starts with a list of the remaining items, and the two lists
 * are one in the whole parse: the join moves the items over (the list keeps the first part's
 * `ordered` and `start`; it is loose when either part's is, since the cut is never after a blank
 * line, the one thing that makes a list loose between items; it ends where the second one ends).
 * Should a join ever find anything else where it expects two lists, it answers null and the
 * document is parsed whole: slower, never different.
 */
import type { Root, RootContent } from 'mdast';
import { cutPoints, cutRulesHold, endPoint, moveInPlace } from './block-parse';

export interface Part {
  /** Offsets of the part's first character and of the character after its last, in the document. */
  start: number;
  end: number;
  /** Lines of the document before the part's first line. */
  lineBefore: number;
  /** Whether the part starts with an item of the list the part before it ends with. */
  continuesList: boolean;
}

/**
 * The document cut into parts of at least `partChars` characters each (the last may be shorter)
 * at the cuts block-parse.ts allows (every allowed cut with 0), or null when it allows none (or
 * none `partChars` in): another syntax than the cut rules were written for (`syntax`,
 * pipeline.ts `MARKDOWN_SYNTAX_EXTENSIONS`), or a construct that crosses blank lines.
 */
export function planParts(markdown: string, syntax: readonly { name: string }[], partChars: number): Part[] | null {
  const cuts = cutRulesHold(syntax) ? cutPoints(markdown) : null;
  if (!cuts) return null;
  const { blocks, listItems } = cuts;
  const parts: Part[] = [];
  let start = 0;
  let continuesList = false;
  let lineBefore = 0;
  let counted = 0;
  const close = (end: number, nextContinuesList: boolean) => {
    parts.push({ start, end, lineBefore, continuesList });
    for (let i = markdown.indexOf('\n', counted); i !== -1 && i < end; i = markdown.indexOf('\n', i + 1)) lineBefore++;
    counted = end;
    start = end;
    continuesList = nextContinuesList;
  };
  // Both lists are ascending and never share an offset (a list item cut is never after a blank line).
  for (let b = 1, l = 0; b < blocks.length || l < listItems.length;) {
    const item = l < listItems.length && (b >= blocks.length || listItems[l]! < blocks[b]!);
    const at = item ? listItems[l++]! : blocks[b++]!;
    if (at - start >= partChars && at > start) close(at, item);
  }
  if (parts.length === 0) return null;
  parts.push({ start, end: markdown.length, lineBefore, continuesList });
  return parts;
}

/**
 * The top-level nodes of a part (its `text`, at `start` after `lineBefore` lines of the document)
 * as they are in the whole parse, from `parse` (a whole-text parser).
 */
export function parsePart(
  text: string,
  { start, lineBefore }: Pick<Part, 'start' | 'lineBefore'>,
  parse: (text: string) => Root,
): RootContent[] {
  const { children } = parse(text);
  moveInPlace(children, lineBefore, start);
  return children;
}

/**
 * The whole document's tree from its parts' nodes (`nodes[i]` of `parts[i]`, from `parsePart`),
 * or null when the parts do not join (see the header). Takes the nodes over: they are changed.
 */
export function joinParts(markdown: string, parts: readonly Part[], nodes: RootContent[][]): Root | null {
  const children: RootContent[] = [];
  for (const [i, part] of parts.entries()) {
    let own = nodes[i]!;
    if (part.continuesList) {
      const before = children[children.length - 1];
      const after = own[0];
      if (before?.type !== 'list' || after?.type !== 'list' || before.ordered !== after.ordered) return null;
      if (!before.position || !after.position) return null;
      before.children.push(...after.children);
      before.spread = Boolean(before.spread || after.spread);
      before.position = { start: before.position.start, end: after.position.end };
      own = own.slice(1);
    }
    for (const node of own) children.push(node);
  }
  return {
    type: 'root',
    children,
    position: { start: { line: 1, column: 1, offset: 0 }, end: endPoint(markdown) },
  };
}
