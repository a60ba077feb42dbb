import { insertBlock } from './island-snippets';

/**
 * What the editor needs of the Markdown field, whichever is on the page: the plain text box the
 * server renders (usable while JavaScript is still loading) or the CodeMirror editor that takes
 * its place once loaded (code-editor.ts). Offsets are UTF-16 positions in the text, as both use.
 */
export interface MarkdownHandle {
  /** The text as it is now. */
  readonly value: string;
  readonly selectionStart: number;
  readonly selectionEnd: number;
  focus(): void;
  /** Selects `from`–`to` and brings it into view (a problem's line, a restored cursor). */
  reveal(from: number, to: number): void;
  /** Replaces `from`–`to` with `insert` (one undo step in the editor), then selects `select`. */
  edit(from: number, to: number, insert: string, select: { from: number; to: number }): void;
}

/**
 * The plain text box as a handle. Its text is React's (`setText`); the selection is set once
 * React has written the new text into the box.
 */
export function textareaHandle(el: HTMLTextAreaElement, setText: (text: string) => void): MarkdownHandle {
  return {
    get value() {
      return el.value;
    },
    get selectionStart() {
      return el.selectionStart;
    },
    get selectionEnd() {
      return el.selectionEnd;
    },
    focus: () => el.focus(),
    reveal(from, to) {
      el.focus();
      el.setSelectionRange(from, to);
      // Put the line in view: its share of the text, as the box scrolls.
      const before = el.value.slice(0, from).split('\n').length - 1;
      const lines = Math.max(1, el.value.split('\n').length);
      el.scrollTop = Math.max(0, (el.scrollHeight * before) / lines - el.clientHeight / 3);
    },
    edit(from, to, insert, select) {
      setText(el.value.slice(0, from) + insert + el.value.slice(to));
      requestAnimationFrame(() => {
        el.focus();
        el.setSelectionRange(select.from, select.to);
      });
    },
  };
}

/** Writes a block of markup (an image, an island) at the field's cursor, or over its selection. */
export function insertBlockAtCursor(field: MarkdownHandle | null, snippet: string): void {
  if (!field) return;
  const start = field.selectionStart;
  const end = field.selectionEnd;
  const next = insertBlock(field.value, start, end, snippet);
  // The text between the old selection's start and the new text's end is what changed.
  const tail = field.value.length - end;
  field.edit(start, end, next.text.slice(start, next.text.length - tail), { from: next.cursor, to: next.cursor });
}
