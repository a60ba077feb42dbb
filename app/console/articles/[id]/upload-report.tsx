'use client';

import { useEffect, useRef } from 'react';
import type { AltPrompt, UploadState } from './use-image-upload';

/** Where an image upload stands: its progress, what was stored, or why not (in words). */
export function UploadReport({ state }: { state: UploadState }) {
  if (state.phase === 'idle') return null;
  if (state.phase === 'uploading')
    return (
      <div className="upload-progress">
        <label htmlFor="editor-upload-progress">Uploading {state.name}</label>
        <progress id="editor-upload-progress" max={state.total || 1} value={state.loaded} />
      </div>
    );
  if (state.phase === 'failed')
    return (
      <p className="error" role="alert">
        Not stored. {state.error}
      </p>
    );
  return (
    <p className="success" role="status">
      {state.message}
    </p>
  );
}

/** Words for readers who cannot see the image, asked for before it is stored and inserted. */
export function AltTextPrompt({
  prompt,
  onChange,
  onInsert,
  onCancel,
}: {
  prompt: AltPrompt;
  onChange: (alt: string) => void;
  onInsert: () => void;
  onCancel: () => void;
}) {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  return (
    <div className="notice alt-prompt" role="group" aria-label="Image to insert">
      <label htmlFor="alt-prompt">
        Alternative text for {prompt.file.name} (what it shows, for readers who cannot see it)
      </label>
      <input
        ref={field}
        id="alt-prompt"
        value={prompt.alt}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault(); // inserts; must not submit the article form around it
            onInsert();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          }
        }}
      />
      <div className="actions">
        <button type="button" className="primary" onClick={onInsert}>
          Insert image
        </button>
        <button type="button" onClick={onCancel}>
          Do not insert
        </button>
      </div>
    </div>
  );
}
