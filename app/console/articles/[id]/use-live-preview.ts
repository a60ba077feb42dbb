'use client';

import { useEffect, useState } from 'react';
import { nearText, PREVIEW_CURSOR_ID } from '@/server/console/preview-cursor';
import { LIVE_PREVIEW_MAX_CHARS, type ArticleFields } from '@/server/console/editor-fields';
import type { MarkdownHandle } from './markdown-handle';
import { postToPreview, PREVIEW_PAUSE_MS } from './live-preview-post';

export type PreviewState = 'saved' | 'pending' | 'live' | 'too-long';

function nearKey(postId: string): string {
  return `console-preview-place:${postId}`;
}

/**
 * The preview frame's two sources. While text is unsaved, a hidden form posts the fields with
 * the cursor's offset into the frame after a pause (each change restarts the timer), and the
 * converted page opens at the cursor. Once saved, the frame shows the stored version, opening at
 * the words of the cursor's line (`near`), kept in the tab's session storage so a reload opens
 * at the same place: neither a Save nor a reload sends the maintainer back to the top.
 */
export function useLivePreview({
  postId,
  dirty,
  fields,
  markdownField,
  previewForm,
}: {
  postId: string;
  dirty: boolean;
  fields: ArticleFields;
  markdownField: React.RefObject<MarkdownHandle | null>;
  /** The hidden form that posts the unsaved fields into the frame (preview-panel.tsx). */
  previewForm: React.RefObject<HTMLFormElement | null>;
}) {
  const [state, setState] = useState<PreviewState>('saved');
  // A new saved version reloads the frame (its key); `near` says where it opens.
  const [saved, setSaved] = useState({ version: '', near: '' });

  // After a reload, the saved version opens where the editing was (read once, after hydration).
  useEffect(() => {
    let near = '';
    try {
      near = window.sessionStorage.getItem(nearKey(postId)) ?? '';
    } catch {
      // storage disabled: the frame opens at the top
    }
    // eslint-disable-next-line react-hooks/set-state-in-effect -- once, right after hydration
    if (near) setSaved((s) => ({ ...s, near }));
  }, [postId]);

  useEffect(() => {
    if (!dirty) return;
    const timer = setTimeout(() => {
      // Too long to convert while typing: nothing is posted, the frame keeps the saved version.
      if (fields.markdown.length > LIVE_PREVIEW_MAX_CHARS) {
        setState('too-long');
        return;
      }
      const form = previewForm.current;
      if (!form) return;
      postToPreview(form, {
        title: fields.title,
        subtitle: fields.subtitle,
        tags: fields.tags,
        markdown: fields.markdown,
        // The chosen image's id, '' for none; the route shows it (live-cover.ts).
        cover_asset_id: fields.cover_asset_id,
        cursor: String(markdownField.current?.selectionStart ?? ''),
      });
      setState('live');
    }, PREVIEW_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [fields, dirty, markdownField, previewForm]);

  /** The stored version changed (`version`: a new one to show): the frame opens at the cursor. */
  const showSaved = (version: string) => {
    const el = markdownField.current;
    const near = el ? nearText(el.value.replace(/\r\n?/g, '\n'), el.selectionStart) : '';
    try {
      if (near) window.sessionStorage.setItem(nearKey(postId), near);
      else window.sessionStorage.removeItem(nearKey(postId));
    } catch {
      // storage full or disabled: only a reload would open at the top
    }
    setSaved({ version, near });
    setState('saved');
  };

  return {
    state,
    markChanged: () => setState('pending'),
    showSaved,
    savedSrc: savedFrameSrc(postId, saved),
    savedKey: saved.version,
  };
}

function savedFrameSrc(postId: string, saved: { version: string; near: string }): string {
  const query = new URLSearchParams();
  if (saved.version) query.set('v', saved.version);
  if (saved.near) query.set('near', saved.near);
  const search = query.size ? `?${query}` : '';
  return `/console/preview/${postId}${search}${saved.near ? `#${PREVIEW_CURSOR_ID}` : ''}`;
}
