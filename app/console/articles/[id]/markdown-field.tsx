'use client';

import { useDeferredValue, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { formatBytes } from '../../components/format';
import { InsertMenu } from './insert-menu';
import { AltTextPrompt, UploadReport } from './upload-report';
import type { useImageUpload } from './use-image-upload';
import { textStats } from './text-stats';
import { textareaHandle, type MarkdownHandle } from './markdown-handle';
import { markEdit, type Mark } from './markdown-marks';
import { MarkdownToolbar } from './markdown-toolbar';
import type { CodeEditor } from './code-editor';

/**
 * The Markdown field with its tools: the formatting toolbar, "Add image from file…", the island
 * menu, image files dropped or pasted into it, today's media quota, the upload's progress and
 * questions, and the text's word count and reading time (counted after typing settles: React
 * defers it, so a long article's keystrokes never wait for the count).
 *
 * The server renders a plain text box, which works while the page's JavaScript is still loading.
 * Once mounted, the CodeMirror editor (code-editor.ts, loaded then) takes its place with the same
 * id, label and description; the box stays in the form, hidden, holding the same text. `field`
 * is whichever of the two is on the page (markdown-handle.ts).
 */
export function MarkdownField({
  value,
  onChange,
  loading,
  loadProblem,
  field,
  images,
  onInsert,
}: {
  value: string;
  onChange: (text: string) => void;
  /** A large article's text is still on its way (the field is read-only until it is here). */
  loading: boolean;
  loadProblem: string;
  field: React.Ref<MarkdownHandle>;
  images: ReturnType<typeof useImageUpload>;
  onInsert: (snippet: string) => void;
}) {
  const box = useRef<HTMLTextAreaElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const [editor, setEditor] = useState<CodeEditor | null>(null);
  // The latest callbacks, for the editor made once.
  const latest = useRef({ onChange, uploadFiles: images.uploadFiles });
  useEffect(() => {
    latest.current = { onChange, uploadFiles: images.uploadFiles };
  });

  useEffect(() => {
    let made: CodeEditor | null = null;
    let cancelled = false;
    void import('./code-editor').then(({ createCodeEditor }) => {
      if (cancelled || !host.current || !box.current) return;
      // A writer already typing in the box goes on in the editor, at the same place.
      const typing = document.activeElement === box.current;
      const { selectionStart, selectionEnd } = box.current;
      made = createCodeEditor({
        parent: host.current,
        text: box.current.value,
        readOnly: box.current.readOnly,
        attributes: { id: 'markdown', 'aria-labelledby': 'markdown-label', 'aria-describedby': 'markdown-help' },
        onChange: (text) => latest.current.onChange(text),
        onFiles: (files) => latest.current.uploadFiles(files),
      });
      if (typing) made.handle.reveal(selectionStart, selectionEnd);
      setEditor(made);
    });
    return () => {
      cancelled = true;
      made?.destroy();
    };
  }, []);

  // The text changed from outside (a restore, the stored version taken, a large text loaded).
  useEffect(() => {
    editor?.setText(value);
  }, [editor, value]);
  useEffect(() => {
    editor?.setReadOnly(loading);
  }, [editor, loading]);
  const handle = useRef<MarkdownHandle>(null);
  useImperativeHandle(field, () => {
    handle.current = editor ? editor.handle : textareaHandle(box.current!, onChange);
    return handle.current;
  }, [editor, onChange]);

  const mark = (m: Mark) => {
    const to = handle.current;
    if (!to) return;
    const edit = markEdit(to.value, to.selectionStart, to.selectionEnd, m);
    to.edit(edit.from, edit.to, edit.insert, edit.selection);
  };

  const filePicker = useRef<HTMLInputElement>(null);
  const settled = useDeferredValue(value);
  const stats = useMemo(() => textStats(settled), [settled]);
  return (
    <>
      <div className="markdown-head">
        {/* The editor's content names this label (aria-labelledby); the box, by `for`, until then. */}
        <label id="markdown-label" htmlFor={editor ? undefined : 'markdown'} onClick={() => editor?.handle.focus()}>
          Markdown
        </label>
        <span className="muted markdown-head__stats">
          {stats.words.toLocaleString('en')} {stats.words === 1 ? 'word' : 'words'} · {stats.minutes} min read
        </span>
        <div className="markdown-head__tools">
          <MarkdownToolbar onMark={mark} disabled={loading} />
          <button type="button" onClick={() => filePicker.current?.click()}>
            Add image from file…
          </button>
          <input
            ref={filePicker}
            type="file"
            accept="image/jpeg,image/png,image/webp,image/avif,image/gif"
            hidden
            tabIndex={-1}
            aria-hidden="true"
            onChange={(e) => {
              if (e.target.files?.length) images.uploadFiles(e.target.files);
              e.target.value = '';
            }}
          />
          <InsertMenu library={images.media} onInsert={onInsert} />
        </div>
      </div>
      <div ref={host} className="code-editor" hidden={!editor} />
      <textarea
        ref={box}
        id={editor ? undefined : 'markdown'}
        name="markdown"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        hidden={!!editor}
        aria-describedby="markdown-help"
        onDragOver={(e) => {
          if (e.dataTransfer.types.includes('Files')) e.preventDefault();
        }}
        onDrop={(e) => {
          if (e.dataTransfer.files.length === 0) return;
          e.preventDefault();
          images.uploadFiles(e.dataTransfer.files);
        }}
        onPaste={(e) => {
          if (e.clipboardData.files.length === 0) return;
          e.preventDefault();
          images.uploadFiles(e.clipboardData.files);
        }}
        rows={24}
        spellCheck={false}
        readOnly={loading}
        aria-busy={loading || undefined}
        // Hidden behind the editor, a required box would stop the form with nothing to show;
        // the save's own check then answers an empty text.
        required={!editor}
      />
      {loading && (
        <p className={loadProblem ? 'error' : 'notice'} role={loadProblem ? 'alert' : 'status'}>
          {loadProblem ? `The text could not be loaded: ${loadProblem} Reload the page.` : 'Loading the text…'}
        </p>
      )}
      <p id="markdown-help" className="muted">
        Drop or paste an image file here, or add one from a file, to store and insert it. Today&apos;s media quota left:{' '}
        <span data-testid="quota-left" data-bytes={images.quotaLeft}>
          {formatBytes(images.quotaLeft)}
        </span>
        .
      </p>
      <UploadReport state={images.upload} />
      {images.altPrompt && (
        <AltTextPrompt
          prompt={images.altPrompt}
          onChange={images.setAlt}
          onInsert={images.insertImage}
          onCancel={images.cancelImage}
        />
      )}
    </>
  );
}
