'use client';

import { useDeferredValue, useMemo, useRef } from 'react';
import { formatBytes } from '../../components/format';
import { InsertMenu } from './insert-menu';
import { AltTextPrompt, UploadReport } from './upload-report';
import type { useImageUpload } from './use-image-upload';
import { textStats } from './text-stats';

/**
 * The Markdown text box with its tools: "Add image from file…", the island menu, image files
 * dropped or pasted into it, today's media quota, the upload's progress and questions, and the
 * text's word count and reading time (counted after typing settles: React defers it, so a long
 * article's keystrokes never wait for the count).
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
  onChange: (e: React.ChangeEvent<HTMLTextAreaElement>) => void;
  /** A large article's text is still on its way (the field is read-only until it is here). */
  loading: boolean;
  loadProblem: string;
  field: React.RefObject<HTMLTextAreaElement | null>;
  images: ReturnType<typeof useImageUpload>;
  onInsert: (snippet: string) => void;
}) {
  const filePicker = useRef<HTMLInputElement>(null);
  const settled = useDeferredValue(value);
  const stats = useMemo(() => textStats(settled), [settled]);
  return (
    <>
      <div className="markdown-head">
        <label htmlFor="markdown">Markdown</label>
        <span className="muted markdown-head__stats">
          {stats.words.toLocaleString('en')} {stats.words === 1 ? 'word' : 'words'} · {stats.minutes} min read
        </span>
        <div className="markdown-head__tools">
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
      <textarea
        ref={field}
        id="markdown"
        name="markdown"
        value={value}
        onChange={onChange}
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
        required
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
