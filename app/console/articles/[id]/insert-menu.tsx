'use client';

import { useEffect, useId, useRef, useState } from 'react';
import {
  captionedImage,
  genericEmbed,
  gif,
  gallery,
  ISLANDS,
  linkCard,
  mediaUrl,
  spoiler,
  videoEmbed,
  type IslandKind,
} from './island-snippets';
import type { LibraryItem } from '@/server/console/media-library';
import { formatDateTime } from '../../components/format';

/**
 * The insert menu: pick an island, fill in what it needs (stored media are picked from the
 * account's library), and its markup is written at the cursor. Validation that the markup can
 * do here (a known video player, https embeds) happens before inserting; the rest is the
 * pipeline's, reported after saving.
 */
export function InsertMenu({ library, onInsert }: { library: LibraryItem[]; onInsert: (snippet: string) => void }) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<IslandKind>('image');
  const [values, setValues] = useState<Record<string, string>>({});
  const [picked, setPicked] = useState<string[]>([]);
  const [error, setError] = useState('');
  const panel = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    if (open) panel.current?.querySelector<HTMLElement>('input, select, textarea, button')?.focus();
  }, [open]);

  const close = () => {
    setOpen(false);
    setError('');
    toggle.current?.focus();
  };

  const value = (name: string) => values[name] ?? '';
  const set = (name: string) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    setValues((v) => ({ ...v, [name]: e.target.value }));

  const images = library.filter((m) => m.kind === 'image');
  const gifs = library.filter((m) => m.kind === 'gif');

  const insert = () => {
    try {
      const snippet = build();
      onInsert(snippet);
      setValues({});
      setPicked([]);
      close();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const build = (): string => {
    switch (kind) {
      case 'image':
        if (!picked[0]) throw new Error('Pick an image from your library.');
        return captionedImage(picked[0], value('alt'), value('caption'));
      case 'gallery':
        if (picked.length < 2) throw new Error('Pick at least two images for a gallery.');
        return gallery(picked, value('caption'));
      case 'video':
        return videoEmbed(value('src').trim());
      case 'embed':
        if (!value('title').trim()) throw new Error('Give the embed a title (screen readers announce it).');
        return genericEmbed(value('src').trim(), value('title'));
      case 'link-card':
        return linkCard(value('href').trim(), value('title'), value('description'));
      case 'spoiler':
        if (!value('body').trim()) throw new Error('Write what the spoiler hides.');
        return spoiler(value('summary'), value('body'));
      case 'gif':
        if (!picked[0]) throw new Error('Pick a GIF from your library.');
        return gif(picked[0]);
    }
  };

  const field = (name: string, label: string, props: React.InputHTMLAttributes<HTMLInputElement> = {}) => (
    <div>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} value={value(name)} onChange={set(name)} {...props} />
    </div>
  );

  const picker = (items: LibraryItem[], multiple: boolean, empty: string) =>
    items.length === 0 ? (
      <p className="muted">{empty}</p>
    ) : (
      <fieldset className="media-picker">
        <legend>{multiple ? 'Images (pick two or more)' : 'From your library'}</legend>
        {items.map((m) => {
          const checked = picked.includes(m.id);
          return (
            <label key={m.id} className="media-picker__item">
              <input
                type={multiple ? 'checkbox' : 'radio'}
                name={`${id}-media`}
                checked={checked}
                onChange={() =>
                  setPicked((p) => (multiple ? (checked ? p.filter((x) => x !== m.id) : [...p, m.id]) : [m.id]))
                }
              />
              {m.kind === 'gif' ? (
                <video src={mediaUrl(m.id)} muted loop playsInline aria-hidden="true" />
              ) : (
                // eslint-disable-next-line @next/next/no-img-element -- stored files are served as they are
                <img src={mediaUrl(m.id)} alt="" width={m.width} height={m.height} loading="lazy" />
              )}
              <span className="media-picker__label">{libraryLabel(m)}</span>
            </label>
          );
        })}
      </fieldset>
    );

  return (
    <div className="insert-menu">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => (open ? close() : setOpen(true))}
      >
        Insert island…
      </button>
      {open && (
        <div
          id={`${id}-panel`}
          ref={panel}
          className="insert-panel"
          role="group"
          aria-label="Insert an island"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              close();
            } else if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.type !== 'checkbox') {
              // Enter inserts; it must not submit the article form around the menu.
              e.preventDefault();
              insert();
            }
          }}
        >
          <label htmlFor={`${id}-kind`}>Island</label>
          <select
            id={`${id}-kind`}
            value={kind}
            onChange={(e) => {
              setKind(e.target.value as IslandKind);
              setPicked([]);
              setError('');
            }}
          >
            {ISLANDS.map((i) => (
              <option key={i.kind} value={i.kind}>
                {i.label}
              </option>
            ))}
          </select>
          {kind === 'image' && (
            <>
              {picker(images, false, 'No images stored yet: drop one into the Markdown field, or upload under Media.')}
              {field('alt', 'Alternative text')}
              {field('caption', 'Caption')}
            </>
          )}
          {kind === 'gallery' && (
            <>
              {picker(images, true, 'No images stored yet: drop some into the Markdown field, or upload under Media.')}
              {field('caption', 'Caption for the gallery')}
            </>
          )}
          {kind === 'video' &&
            field('src', 'Video address', { type: 'url', placeholder: 'https://www.youtube.com/watch?v=…' })}
          {kind === 'embed' && (
            <>
              {field('src', 'Embed address', { type: 'url', placeholder: 'https://www.figma.com/embed?…' })}
              {field('title', 'Title')}
            </>
          )}
          {kind === 'link-card' && (
            <>
              {field('href', 'Link address', { type: 'url', placeholder: 'https://' })}
              {field('title', 'Title')}
              {field('description', 'Description')}
            </>
          )}
          {kind === 'spoiler' && (
            <>
              {field('summary', 'Visible summary')}
              {field('body', 'Hidden text')}
            </>
          )}
          {kind === 'gif' && picker(gifs, false, 'No GIFs stored yet: store one from a URL under Media.')}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="button" className="primary" onClick={insert}>
              Insert at cursor
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** A library item's label: its file name (or kind) and size, then when it was stored; never its place in the list. */
function libraryLabel(m: LibraryItem): string {
  const what = m.name || (m.kind === 'gif' ? 'GIF' : 'Image');
  const when = m.storedAt ? `, stored ${formatDateTime(m.storedAt)}` : '';
  return `${what}, ${m.width}×${m.height}${when}`;
}
