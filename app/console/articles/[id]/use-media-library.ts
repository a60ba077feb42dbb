'use client';

import { useState } from 'react';
import type { LibraryItem } from '@/server/console/media-library';
import { refuseBeforeUpload, uploadImage, type Uploaded } from './image-upload';

/** A file the upload route stored (or found already in the library), with its library id and kind. */
export type StoredFile = Uploaded & { id: string | null; kind: 'image' | 'gif' };

/**
 * The account's media library and today's quota as the editor page knows them, one state for
 * every part that uploads (the Markdown field's images, the cover picker): a file stored by one
 * is offered by the others (the insert menu, the cover's library), and its bytes leave the quota
 * every part checks before uploading. A file already in the library is not stored twice: the
 * route answers with that entry, which is added here only if the page did not list it, and the
 * quota is not charged.
 */
export function useMediaLibrary({
  csrf,
  library,
  initialQuotaLeft,
}: {
  csrf: string;
  library: LibraryItem[];
  initialQuotaLeft: number;
}) {
  const [media, setMedia] = useState(library);
  const [quotaLeft, setQuotaLeft] = useState(initialQuotaLeft);

  /** Stores `file` through the editor's upload route; the library and the quota follow. */
  const store = async (file: File, onProgress: (loaded: number, total: number) => void): Promise<StoredFile> => {
    const stored = await uploadImage(file, csrf, onProgress);
    const id = /\/api\/media\/([0-9a-f-]{36})/.exec(stored.snippet)?.[1] ?? null;
    const kind = stored.snippet.includes('dp-gif') ? 'gif' : 'image';
    const item = { id: id ?? '', kind, width: stored.width, height: stored.height } as const;
    if (stored.reused) {
      // The library's own entry: added, at the end, only when older than the newest the page listed.
      const { storedAt, fileName } = stored.reused;
      if (id) setMedia((m) => (m.some((i) => i.id === id) ? m : [...m, { ...item, name: fileName, storedAt }]));
    } else {
      setQuotaLeft((q) => Math.max(0, q - stored.byteSize));
      if (id) setMedia((m) => [{ ...item, name: file.name }, ...m.filter((i) => i.id !== id)]);
    }
    return { ...stored, id, kind };
  };

  return {
    media,
    quotaLeft,
    store,
    /** Why `file` cannot be uploaded before trying (its type, its size, today's quota), or null. */
    refusal: (file: File) => refuseBeforeUpload(file, quotaLeft),
  };
}

export type MediaLibrary = ReturnType<typeof useMediaLibrary>;
