'use client';

import { useState } from 'react';
import type { LibraryItem } from '@/server/console/media';
import { altFromFileName, refuseBeforeUpload, uploadImage, withAltText } from './image-upload';

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
 * once. Keeps the quota left and the media library the insert menu offers up to date. A file
 * already in the library is not stored twice: the route answers with that entry, which is
 * inserted, and the notice says so.
 */
export function useImageUpload({
  csrf,
  library,
  initialQuotaLeft,
  insertAtCursor,
}: {
  csrf: string;
  library: LibraryItem[];
  initialQuotaLeft: number;
  insertAtCursor: (snippet: string) => void;
}) {
  const [upload, setUpload] = useState<UploadState>({ phase: 'idle' });
  const [quotaLeft, setQuotaLeft] = useState(initialQuotaLeft);
  const [media, setMedia] = useState(library);
  const [altPrompt, setAltPrompt] = useState<AltPrompt | null>(null);

  const store = (file: File, alt: string | null) => {
    setUpload({ phase: 'uploading', name: file.name, loaded: 0, total: file.size });
    uploadImage(file, csrf, (loaded, total) => setUpload({ phase: 'uploading', name: file.name, loaded, total }))
      .then((stored) => {
        const id = /\/api\/media\/([0-9a-f-]{36})/.exec(stored.snippet)?.[1];
        const kind = stored.snippet.includes('dp-gif') ? 'gif' : 'image';
        if (stored.reused) {
          // The library's own entry was used: nothing was charged, and the library keeps one
          // entry for it (added, at the end, only when it is older than the newest the page listed).
          const { storedAt, fileName, notice } = stored.reused;
          if (id)
            setMedia((m) =>
              m.some((item) => item.id === id)
                ? m
                : [...m, { id, kind, width: stored.width, height: stored.height, name: fileName, storedAt }],
            );
          insertAtCursor(
            kind === 'gif' ? stored.snippet : withAltText(stored.snippet, alt ?? altFromFileName(file.name)),
          );
          setUpload({ phase: 'done', message: `${notice} It was inserted.` });
          return;
        }
        setQuotaLeft((q) => Math.max(0, q - stored.byteSize));
        if (id) setMedia((m) => [{ id, kind, width: stored.width, height: stored.height, name: file.name }, ...m]);
        if (kind === 'gif') {
          insertAtCursor(stored.snippet);
          setUpload({ phase: 'done', message: `Stored ${file.name} as a looping video and inserted it.` });
          return;
        }
        insertAtCursor(withAltText(stored.snippet, alt ?? altFromFileName(file.name)));
        setUpload({
          phase: 'done',
          message: `Stored ${file.name} (${stored.width}×${stored.height}) and inserted it.`,
        });
      })
      .catch((err: unknown) => setUpload({ phase: 'failed', error: err instanceof Error ? err.message : String(err) }));
  };

  /** An image file dropped, pasted or picked: a GIF is stored at once, another image asks first. */
  const uploadFiles = (files: FileList) => {
    const file = Array.from(files).find((f) => f.type.startsWith('image/')) ?? files[0];
    if (!file) return;
    const refusal = refuseBeforeUpload(file, quotaLeft);
    if (refusal) return setUpload({ phase: 'failed', error: refusal });
    if (file.type === 'image/gif') return store(file, null);
    setUpload({ phase: 'idle' });
    setAltPrompt({ file, alt: altFromFileName(file.name) });
  };

  return {
    upload,
    resetUpload: () => setUpload({ phase: 'idle' }),
    quotaLeft,
    media,
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
