'use client';

import { useState } from 'react';
import { altFromFileName, withAltText } from './image-upload';
import type { MediaLibrary } from './use-media-library';

export type UploadState =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; loaded: number; total: number }
  | { phase: 'done'; message: string }
  | { phase: 'failed'; error: string };

/** An image waiting for its alternative text; nothing is stored until it is inserted. */
export type AltPrompt = { file: File; alt: string };

/**
 * Image files dropped, pasted or picked in the editor. An image first asks for the words readers
 * who cannot see it get, and only "Insert image" stores it (so "Do not insert" leaves no file
 * counting against the day's quota); a GIF becomes a looping video and is stored and inserted at
 * once. The library and the quota are the page's (use-media-library.ts). A file already in the
 * library is not stored twice: the route answers with that entry, which is inserted, and the
 * notice says so.
 */
export function useImageUpload({
  library,
  insertAtCursor,
}: {
  library: MediaLibrary;
  insertAtCursor: (snippet: string) => void;
}) {
  const [upload, setUpload] = useState<UploadState>({ phase: 'idle' });
  const [altPrompt, setAltPrompt] = useState<AltPrompt | null>(null);

  const store = (file: File, alt: string | null) => {
    setUpload({ phase: 'uploading', name: file.name, loaded: 0, total: file.size });
    library
      .store(file, (loaded, total) => setUpload({ phase: 'uploading', name: file.name, loaded, total }))
      .then((stored) => {
        const snippet =
          stored.kind === 'gif' ? stored.snippet : withAltText(stored.snippet, alt ?? altFromFileName(file.name));
        insertAtCursor(snippet);
        setUpload({
          phase: 'done',
          message: stored.reused
            ? `${stored.reused.notice} It was inserted.`
            : stored.kind === 'gif'
              ? `Stored ${file.name} as a looping video and inserted it.`
              : `Stored ${file.name} (${stored.width}×${stored.height}) and inserted it.`,
        });
      })
      .catch((err: unknown) => setUpload({ phase: 'failed', error: err instanceof Error ? err.message : String(err) }));
  };

  /** An image file dropped, pasted or picked: a GIF is stored at once, another image asks first. */
  const uploadFiles = (files: FileList) => {
    const file = Array.from(files).find((f) => f.type.startsWith('image/')) ?? files[0];
    if (!file) return;
    const refusal = library.refusal(file);
    if (refusal) return setUpload({ phase: 'failed', error: refusal });
    if (file.type === 'image/gif') return store(file, null);
    setUpload({ phase: 'idle' });
    setAltPrompt({ file, alt: altFromFileName(file.name) });
  };

  return {
    upload,
    resetUpload: () => setUpload({ phase: 'idle' }),
    quotaLeft: library.quotaLeft,
    media: library.media,
    altPrompt,
    setAlt: (alt: string) => setAltPrompt((p) => (p ? { ...p, alt } : p)),
    insertImage: () => {
      if (!altPrompt) return;
      setAltPrompt(null);
      store(altPrompt.file, altPrompt.alt);
    },
    cancelImage: () => {
      if (!altPrompt) return;
      setAltPrompt(null);
      setUpload({ phase: 'done', message: `${altPrompt.file.name} was not stored or inserted.` });
    },
    uploadFiles,
  };
}
