import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, drawSelection, keymap } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown, markdownLanguage } from '@codemirror/lang-markdown';
import { syntaxHighlighting } from '@codemirror/language';
import { tagHighlighter, tags } from '@lezer/highlight';
import type { MarkdownHandle } from './markdown-handle';
import { markEdit, type Mark } from './markdown-marks';

/**
 * The Markdown field as a CodeMirror 6 editor: GFM syntax colouring (tokens as `tok-*` classes,
 * coloured by globals.css), undo history, and the shortcuts of the toolbar's marks. Loaded after
 * the page (markdown-field.tsx imports it when it mounts), in place of the plain text box.
 *
 * It keeps the text exactly as typed: no keymap that writes on its own (Markdown's list
 * continuation on Enter is left out), no auto-closing brackets, no completion; Tab is left to the
 * browser, so the keyboard moves on to the next control as it does from a text box. Lines are
 * separated by \n, which is how the editor compares texts anyway (editor.tsx).
 */

/** Ctrl (⌘ on a Mac) with these keys applies the toolbar's mark (markdown-toolbar.tsx shows them). */
export const MARK_KEYS: Partial<Record<Mark, string>> = {
  bold: 'Mod-b',
  italic: 'Mod-i',
  link: 'Mod-k',
  code: 'Mod-e',
};

/**
 * Markdown's (and its HTML islands') syntax as `tok-*` classes, coloured by globals.css (one
 * palette for the console, checked for contrast by axe).
 */
const MARKDOWN_CLASSES = tagHighlighter([
  { tag: tags.heading, class: 'tok-heading' },
  { tag: tags.strong, class: 'tok-strong' },
  { tag: tags.emphasis, class: 'tok-emphasis' },
  { tag: tags.strikethrough, class: 'tok-strikethrough' },
  { tag: [tags.link, tags.url], class: 'tok-link' },
  { tag: tags.monospace, class: 'tok-monospace' },
  { tag: tags.quote, class: 'tok-quote' },
  { tag: [tags.processingInstruction, tags.meta, tags.punctuation, tags.contentSeparator], class: 'tok-meta' },
  { tag: [tags.tagName, tags.angleBracket], class: 'tok-tagName' },
  { tag: tags.attributeName, class: 'tok-attributeName' },
  { tag: [tags.attributeValue, tags.string], class: 'tok-string' },
  { tag: tags.comment, class: 'tok-comment' },
]);

export interface CodeEditor {
  handle: MarkdownHandle;
  /** The whole text replaced from outside (a restore, a reload of the stored version). */
  setText(text: string): void;
  setReadOnly(readOnly: boolean): void;
  destroy(): void;
}

export function createCodeEditor({
  parent,
  text,
  readOnly,
  attributes,
  onChange,
  onFiles,
}: {
  parent: HTMLElement;
  text: string;
  readOnly: boolean;
  /** The content element's attributes: its id, label and description (the text box's). */
  attributes: Record<string, string>;
  onChange: (text: string) => void;
  /** Image files dropped or pasted into the text. */
  onFiles: (files: FileList) => void;
}): CodeEditor {
  const editable = new Compartment();
  // A text set from outside is not the writer's typing: it is not reported back as a change.
  let settingText = false;
  const applyMark = (view: EditorView, mark: Mark) => {
    const { from, to } = view.state.selection.main;
    const edit = markEdit(view.state.doc.toString(), from, to, mark);
    view.dispatch({
      changes: { from: edit.from, to: edit.to, insert: edit.insert },
      selection: { anchor: edit.selection.from, head: edit.selection.to },
      scrollIntoView: true,
      userEvent: 'input',
    });
    return true;
  };
  const markKeys = Object.entries(MARK_KEYS).map(([mark, key]) => ({
    key,
    preventDefault: true,
    run: (view: EditorView) => applyMark(view, mark as Mark),
  }));

  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        history(),
        drawSelection(),
        EditorView.lineWrapping,
        Prec.high(keymap.of(markKeys)),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        markdown({ base: markdownLanguage, addKeymap: false, completeHTMLTags: false }),
        syntaxHighlighting(MARKDOWN_CLASSES),
        editable.of(readOnlyExtensions(readOnly)),
        EditorView.contentAttributes.of({
          ...attributes,
          spellcheck: 'false',
          autocorrect: 'off',
          autocapitalize: 'off',
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !settingText) onChange(update.state.doc.toString());
        }),
        EditorView.domEventHandlers({
          dragover: (event) => {
            if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
            return false;
          },
          drop: (event) => {
            if (!event.dataTransfer?.files.length) return false;
            event.preventDefault();
            onFiles(event.dataTransfer.files);
            return true;
          },
          paste: (event) => {
            if (!event.clipboardData?.files.length) return false;
            event.preventDefault();
            onFiles(event.clipboardData.files);
            return true;
          },
        }),
      ],
    }),
  });

  const handle: MarkdownHandle = {
    get value() {
      return view.state.doc.toString();
    },
    get selectionStart() {
      return view.state.selection.main.from;
    },
    get selectionEnd() {
      return view.state.selection.main.to;
    },
    focus: () => view.focus(),
    reveal(from, to) {
      view.dispatch({
        selection: { anchor: from, head: to },
        effects: EditorView.scrollIntoView(from, { y: 'center' }),
      });
      view.focus();
    },
    edit(from, to, insert, select) {
      view.dispatch({
        changes: { from, to, insert },
        selection: { anchor: select.from, head: select.to },
        scrollIntoView: true,
        userEvent: 'input',
      });
      view.focus();
    },
  };

  return {
    handle,
    setText(next) {
      if (next === view.state.doc.toString()) return;
      settingText = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
      } finally {
        settingText = false;
      }
    },
    setReadOnly(readOnly) {
      view.dispatch({ effects: editable.reconfigure(readOnlyExtensions(readOnly)) });
    },
    destroy: () => view.destroy(),
  };
}

function readOnlyExtensions(readOnly: boolean) {
  return [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)];
}
