'use client';

import { useId, useRef, useState } from 'react';
import { formatDateTime } from '../../components/format';
import { mediaUrl } from './island-snippets';
import type { LibraryItem } from '@/server/console/media-library';
import type { MediaLibrary } from './use-media-library';

/** The cover the article has saved, as the page read it. */
export interface SavedCover {
  id: string;
  width: number;
  height: number;
}

type Status =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; loaded: number; total: number }
  | { phase: 'done'; message: string }
  | { phase: 'failed'; error: string };

/** Still images only: a GIF is stored as a looping video, which cannot be a cover. */
const COVER_TYPES = 'image/jpeg,image/png,image/webp,image/avif';

/**
 * The article's cover: the current one (or "No cover"), one of the account's library images to
 * choose instead, a new image uploaded into the page's library (use-media-library.ts: the same
 * route, limits, library and quota as "Add image from file…"), or none. Choosing only changes the editor's
 * `cover_asset_id` field: Save sends it as PATCH /posts/{id} would ('' removes the cover), and
 * the live preview shows it meanwhile.
 */
export function CoverPicker({
  value,
  saved,
  library,
  onChange,
}: {
  /** The chosen image's id, '' for no cover. */
  value: string;
  saved: SavedCover | null;
  /** The page's media library (GIF videos are left out here) and today's quota. */
  library: MediaLibrary;
  onChange: (id: string) => void;
}) {
  const id = useId();
  const filePicker = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<Status>({ phase: 'idle' });
  const images = library.media.filter((m) => m.kind === 'image');
  const current = value ? (images.find((m) => m.id === value) ?? (saved?.id === value ? saved : null)) : null;

  const choose = (next: string) => {
    setOpen(false);
    setStatus({ phase: 'idle' });
    if (next !== value) onChange(next);
  };

  const upload = (file: File) => {
    if (file.type === 'image/gif')
      return setStatus({
        phase: 'failed',
        error: `${file.name} is a GIF, which is stored as a looping video: a cover is a still image (JPEG, PNG, WebP or AVIF).`,
      });
    const refusal = library.refusal(file);
    if (refusal) return setStatus({ phase: 'failed', error: refusal });
    setStatus({ phase: 'uploading', name: file.name, loaded: 0, total: file.size });
    library
      .store(file, (loaded, total) => setStatus({ phase: 'uploading', name: file.name, loaded, total }))
      .then((stored) => {
        const storedId = stored.id;
        if (!storedId || stored.kind === 'gif')
          throw new Error(`${file.name} was stored, but not as a still image: it cannot be a cover.`);
        setOpen(false);
        if (storedId !== value) onChange(storedId);
        setStatus({
          phase: 'done',
          message: stored.reused
            ? `${stored.reused.notice} It is the cover now; save to keep it.`
            : `Stored ${file.name} (${stored.width}×${stored.height}): it is the cover now; save to keep it.`,
        });
      })
      .catch((err: unknown) => setStatus({ phase: 'failed', error: err instanceof Error ? err.message : String(err) }));
  };

  return (
    <fieldset className="cover-picker" aria-describedby={`${id}-help`}>
      <legend>Cover</legend>
      <div className="cover-picker__current">
        {value ? (
          <>
            {/* eslint-disable-next-line @next/next/no-img-element -- stored files are served as they are */}
            <img
              src={mediaUrl(value)}
              alt="Current cover"
              width={current?.width}
              height={current?.height}
              data-cover-id={value}
            />
            <span className="muted">{current ? coverLabel(current) : 'Image'}</span>
          </>
        ) : (
          <span className="muted">No cover</span>
        )}
      </div>
      <div className="cover-picker__tools">
        <button type="button" aria-expanded={open} aria-controls={`${id}-library`} onClick={() => setOpen((o) => !o)}>
          Choose from library…
        </button>
        <button type="button" onClick={() => filePicker.current?.click()} disabled={status.phase === 'uploading'}>
          Upload cover image…
        </button>
        <input
          ref={filePicker}
          type="file"
          accept={COVER_TYPES}
          hidden
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) upload(file);
            e.target.value = '';
          }}
        />
        {value && (
          <button type="button" onClick={() => choose('')}>
            Remove cover
          </button>
        )}
      </div>
      <small id={`${id}-help`} className="muted">
        Shown above the article. An uploaded image is added to your library. Save to keep the change.
      </small>
      {open && (
        <div id={`${id}-library`} role="group" aria-label="Images in your library" className="cover-picker__library">
          {images.length === 0 ? (
            <p className="muted">No images in your library yet: upload one.</p>
          ) : (
            <div className="media-picker">
              {images.map((m) => (
                <button
                  key={m.id}
                  type="button"
                  className="media-picker__item cover-picker__choice"
                  aria-pressed={m.id === value}
                  data-media-id={m.id}
                  onClick={() => choose(m.id)}
                >
                  {/* eslint-disable-next-line @next/next/no-img-element -- stored files are served as they are */}
                  <img src={mediaUrl(m.id)} alt="" width={m.width} height={m.height} loading="lazy" />
                  <span className="media-picker__label">{coverLabel(m)}</span>
                </button>
              ))}
            </div>
          )}
        </div>
      )}
      {status.phase === 'uploading' && (
        <p className="muted" role="status">
          Uploading {status.name}… {status.total ? Math.round((100 * status.loaded) / status.total) : 0} %
        </p>
      )}
      {status.phase === 'done' && (
        <p className="notice" role="status">
          {status.message}
        </p>
      )}
      {status.phase === 'failed' && (
        <p className="warning-box" role="alert">
          {status.error}
        </p>
      )}
    </fieldset>
  );
}

/** A library image's label: its file name (or "Image"), size, and when it was stored. */
function coverLabel(m: Pick<LibraryItem, 'width' | 'height'> & Partial<LibraryItem>): string {
  const when = m.storedAt ? `, stored ${formatDateTime(m.storedAt)}` : '';
  return `${m.name || 'Image'}, ${m.width}×${m.height}${when}`;
}
