/**
 * What the editor's toolbar and shortcuts write (README "Writing in the editor"): each mark is
 * one edit of the Markdown text, computed here from the text and the selection, so the
 * CodeMirror editor and the plain text box (before the editor has loaded) write exactly the same
 * Markdown. Nothing else in the text changes: no reformatting, only the marks added or removed.
 *
 * - Inline marks wrap the selection (`**bold**`, `*italic*`, `` `code` ``, `[text](https://)`),
 *   leaving spaces at its ends outside; with nothing selected they insert a placeholder, selected
 *   so that typing replaces it. Applied again to a wrapped selection, bold, italic and code take
 *   their marks off.
 * - Code over several lines becomes a fenced block.
 * - Line marks (`## ` heading, `> ` quote, `- ` and `1. ` lists) start every line the selection
 *   touches; when every such line already starts with it, they are taken off.
 */

export type InlineMark = 'bold' | 'italic' | 'code' | 'link';
export type LineMark = 'heading' | 'quote' | 'bullets' | 'numbers';
export type Mark = InlineMark | LineMark;

/** Replace `from`–`to` with `insert`, then select `selection` (offsets in the new text). */
export interface MarkEdit {
  from: number;
  to: number;
  insert: string;
  selection: { from: number; to: number };
}

const WRAP: Record<'bold' | 'italic', { marker: string; placeholder: string }> = {
  bold: { marker: '**', placeholder: 'bold text' },
  italic: { marker: '*', placeholder: 'italic text' },
};

const LINK_PLACEHOLDER = 'link text';
const URL_PLACEHOLDER = 'https://';

/** The edit a mark makes on `text` with `from`–`to` selected. */
export function markEdit(text: string, from: number, to: number, mark: Mark): MarkEdit {
  const [a, b] = from <= to ? [from, to] : [to, from];
  switch (mark) {
    case 'bold':
    case 'italic':
      return wrapEdit(text, a, b, WRAP[mark].marker, WRAP[mark].placeholder);
    case 'code':
      return text.slice(a, b).includes('\n') ? fenceEdit(text, a, b) : codeEdit(text, a, b);
    case 'link':
      return linkEdit(text, a, b);
    default:
      return lineEdit(text, a, b, mark);
  }
}

/** The selection without the spaces at its ends (they stay outside the marks). */
function trimmed(text: string, from: number, to: number): [number, number] {
  let a = from;
  let b = to;
  while (a < b && /\s/.test(text[a]!)) a++;
  while (b > a && /\s/.test(text[b - 1]!)) b--;
  return [a, b];
}

function wrapEdit(text: string, from: number, to: number, marker: string, placeholder: string): MarkEdit {
  const [a, b] = trimmed(text, from, to);
  const n = marker.length;
  if (a === b) {
    return {
      from: a,
      to: b,
      insert: marker + placeholder + marker,
      selection: { from: a + n, to: a + n + placeholder.length },
    };
  }
  // Already wrapped (the marks just outside the selection, or its own ends): take them off.
  // Italic's single `*` is not taken for a bold's `**`.
  const outside = text.slice(a - n, a) === marker && text.slice(b, b + n) === marker && !boldAround(text, a, b, marker);
  if (outside) {
    return { from: a - n, to: b + n, insert: text.slice(a, b), selection: { from: a - n, to: b - n } };
  }
  const inner = text.slice(a, b);
  if (inner.length > 2 * n && inner.startsWith(marker) && inner.endsWith(marker) && !boldInside(inner, marker)) {
    const bare = inner.slice(n, -n);
    return { from: a, to: b, insert: bare, selection: { from: a, to: a + bare.length } };
  }
  return { from: a, to: b, insert: marker + inner + marker, selection: { from: a + n, to: b + n } };
}

/**
 * For italic: the `*` around the selection are a bold's `**`, not an italic's. Three on each
 * side (`***word***`) are bold and italic, and italic's one can be taken off.
 */
function boldAround(text: string, a: number, b: number, marker: string): boolean {
  return marker === '*' && text[a - 2] === '*' && text[b + 1] === '*' && !(text[a - 3] === '*' && text[b + 2] === '*');
}

function boldInside(inner: string, marker: string): boolean {
  return (
    marker === '*' &&
    inner.startsWith('**') &&
    inner.endsWith('**') &&
    !(inner.length > 6 && inner.startsWith('***') && inner.endsWith('***'))
  );
}

/** Inline code: a backtick run longer than any inside, padded when the code starts or ends with one. */
function codeEdit(text: string, from: number, to: number): MarkEdit {
  const [a, b] = trimmed(text, from, to);
  if (a === b) return { from: a, to: b, insert: '`code`', selection: { from: a + 1, to: a + 5 } };
  const inner = text.slice(a, b);
  const unwrapped = codeUnwrap(text, a, b);
  if (unwrapped) return unwrapped;
  const longest = Math.max(0, ...[...inner.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = inner.startsWith('`') || inner.endsWith('`') ? ' ' : '';
  const open = ticks + pad;
  return {
    from: a,
    to: b,
    insert: open + inner + pad + ticks,
    selection: { from: a + open.length, to: a + open.length + inner.length },
  };
}

/**
 * Already code, as `codeEdit` writes it: equal backtick runs just outside the selection (past
 * one space each side when the code starts or ends with a backtick), and no run of that length
 * inside. Takes them off.
 */
function codeUnwrap(text: string, a: number, b: number): MarkEdit | null {
  const inner = text.slice(a, b);
  const pad = inner.startsWith('`') || inner.endsWith('`') ? 1 : 0;
  if (pad && (text[a - 1] !== ' ' || text[b] !== ' ')) return null;
  const open = a - pad;
  const close = b + pad;
  let left = 0;
  while (open - left > 0 && text[open - left - 1] === '`') left++;
  let right = 0;
  while (text[close + right] === '`') right++;
  if (left === 0 || left !== right) return null;
  if ([...inner.matchAll(/`+/g)].some((m) => m[0].length === left)) return null;
  const from = open - left;
  return { from, to: close + right, insert: inner, selection: { from, to: from + inner.length } };
}

/** Where the line holding offset `i` starts. */
function lineStart(text: string, i: number): number {
  // (`lastIndexOf` with -1 would look at offset 0, and a text starting with a newline would
  // put the first line after it.)
  return i === 0 ? 0 : text.lastIndexOf('\n', i - 1) + 1;
}

/** Lines of code: a fence on lines of its own, longer than any backtick fence inside. */
function fenceEdit(text: string, from: number, to: number): MarkEdit {
  const start = lineStart(text, from);
  const nl = text.indexOf('\n', Math.max(start, to - (text[to - 1] === '\n' ? 1 : 0)));
  const end = nl === -1 ? text.length : nl;
  const inner = text.slice(start, end);
  const longest = Math.max(0, ...[...inner.matchAll(/^ {0,3}(`{3,})/gm)].map((m) => m[1]!.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const insert = `${fence}\n${inner}\n${fence}`;
  const at = start + fence.length + 1;
  return { from: start, to: end, insert, selection: { from: at, to: at + inner.length } };
}

function linkEdit(text: string, from: number, to: number): MarkEdit {
  const [a, b] = trimmed(text, from, to);
  const inner = text.slice(a, b);
  if (a === b) {
    const insert = `[${LINK_PLACEHOLDER}](${URL_PLACEHOLDER})`;
    return { from: a, to: b, insert, selection: { from: a + 1, to: a + 1 + LINK_PLACEHOLDER.length } };
  }
  // A selected address becomes the link's target, and its text is what to type next.
  if (/^https?:\/\/\S+$/.test(inner)) {
    const insert = `[${LINK_PLACEHOLDER}](${inner})`;
    return { from: a, to: b, insert, selection: { from: a + 1, to: a + 1 + LINK_PLACEHOLDER.length } };
  }
  const insert = `[${inner}](${URL_PLACEHOLDER})`;
  const at = a + inner.length + 3;
  return { from: a, to: b, insert, selection: { from: at, to: at + URL_PLACEHOLDER.length } };
}

const LINE_PREFIX: Record<LineMark, { add: (i: number) => string; has: RegExp }> = {
  // Only `## ` is this mark: another level (`# `) is replaced by it, not taken off.
  heading: { add: () => '## ', has: /^## / },
  quote: { add: () => '> ', has: /^> ?/ },
  bullets: { add: () => '- ', has: /^[-*+] / },
  numbers: { add: (i) => `${i + 1}. `, has: /^\d{1,9}[.)] / },
};

/** Every line the selection touches starts with the mark, or none does any more. */
function lineEdit(text: string, from: number, to: number, mark: LineMark): MarkEdit {
  const start = lineStart(text, from);
  // A selection ending at a line's start (after a triple click) does not touch that line.
  const last = to > from && text[to - 1] === '\n' ? to - 1 : to;
  const nl = text.indexOf('\n', last);
  const end = nl === -1 ? text.length : nl;
  const lines = text.slice(start, end).split('\n');
  const { add, has } = LINE_PREFIX[mark];
  const marked = lines.filter((l) => l.trim() !== '');
  const remove = marked.length > 0 && marked.every((l) => has.test(l));
  let counted = 0;
  const next = lines.map((l) => {
    if (remove) return l.replace(has, '');
    if (l.trim() === '' && lines.length > 1) return l;
    // A heading replaces another level's marks rather than stacking on them.
    const bare = mark === 'heading' ? l.replace(/^#{1,6} /, '') : l;
    return add(counted++) + bare;
  });
  const insert = next.join('\n');
  if (lines.length === 1 && from === to) {
    const caret = Math.max(start, from + (insert.length - (end - start)));
    return { from: start, to: end, insert, selection: { from: caret, to: caret } };
  }
  return { from: start, to: end, insert, selection: { from: start, to: start + insert.length } };
}

/** The text after an edit (for the plain text box, and tests). */
export function applyEdit(text: string, edit: MarkEdit): string {
  return text.slice(0, edit.from) + edit.insert + text.slice(edit.to);
}
