'use client';

import { useEffect, useRef, useState } from 'react';
import type { ArticleFields, EditorFields } from '@/server/console/editor-fields';
import { clearDraft, readDraft, writeDraft } from './unsaved-draft';
import { changedFields, keepMine as mergeKeepingMine, normalizedFields } from './field-changes';
import { takeCreatedReport } from './created-report';
import type { WriteReport } from '../../actions/articles';

/**
 * A version of the article as stored: its ETag and its editor fields. A version loaded to compare
 * or restored carries only the texts: the cover is then the one the editor's text was based on
 * (a restore keeps the cover; a version changed elsewhere is compared on its texts).
 */
export type StoredVersion = { version: string; fields: EditorFields & Partial<ArticleFields> };

/** What creating the article reported, shown like a save's report until the next save. */
export type CreatedReport = { ok: true; created: true } & WriteReport;

/**
 * The editor's text and what it is based on. `base` is the stored version the text started
 * from and `version` its ETag, so a save sends only what differs from `base`, with `version`
 * as If-Match, and never overwrites a change made elsewhere. Unsaved text is kept in the tab's
 * session storage (unsaved-draft.ts) and comes back after a reload with the version it was based on.
 */
export function useEditorFields({
  postId,
  loadedVersion,
  initialRaw,
  markdownSource,
  editForm,
  onAdopted,
  onCreatedReport,
}: {
  postId: string;
  loadedVersion: string;
  initialRaw: ArticleFields;
  /** Where a large article's Markdown is loaded from after the page shows (its `initialRaw.markdown` is empty). */
  markdownSource?: string;
  editForm: React.RefObject<HTMLFormElement | null>;
  /** Text came from somewhere other than the stored version (typed before hydration, a draft). */
  onAdopted: () => void;
  onCreatedReport: (report: CreatedReport) => void;
}) {
  const [loadedMarkdown, setLoadedMarkdown] = useState<string | null>(markdownSource ? null : '');
  const [loadProblem, setLoadProblem] = useState('');
  // The stored fields as this page has them: a large article's Markdown once it has loaded.
  const initial = normalizedFields(loadedMarkdown ? { ...initialRaw, markdown: loadedMarkdown } : initialRaw);
  const [fields, setFields] = useState(initial);
  const [base, setBase] = useState(initial);
  const [version, setVersion] = useState(loadedVersion);
  const [restored, setRestored] = useState(false);
  const dirty = changedFields(fields, base).length > 0;
  const callbacks = useRef({ onAdopted, onCreatedReport });

  /** Unsaved text left in this tab before a reload comes back, with the version it was based on. */
  const restoreDraft = (stored: ArticleFields) => {
    const draft = readDraft(postId);
    if (draft && changedFields(draft.fields, stored).length > 0) {
      // A draft keeps the texts only: the cover is the stored one.
      setFields({ ...draft.fields, cover_asset_id: stored.cover_asset_id });
      setVersion(draft.version);
      setRestored(true);
      callbacks.current.onAdopted();
    } else if (draft) {
      clearDraft(postId);
    }
  };

  // A large article's Markdown, loaded once after the page shows; the field is read-only until then.
  useEffect(() => {
    if (!markdownSource) return;
    fetch(markdownSource, { cache: 'no-store' })
      .then(async (res) => {
        const text = await res.text();
        if (!res.ok) throw new Error(text);
        // Saved elsewhere between the page and this read: load the page again, all of one version.
        if (res.headers.get('etag') !== loadedVersion) return window.location.reload();
        const stored = normalizedFields({ ...initialRaw, markdown: text });
        setLoadedMarkdown(stored.markdown);
        setFields(stored);
        setBase(stored);
        restoreDraft(stored);
      })
      .catch((err: unknown) => setLoadProblem(err instanceof Error ? err.message : String(err)));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, right after hydration
  }, []);

  // Text typed before React hydrated the form fired no onChange: adopt it once on mount, so
  // it is neither lost on the next render nor left out of the live preview.
  useEffect(() => {
    const form = editForm.current;
    if (!form || markdownSource) return;
    const typed = { ...initial };
    let changed = false;
    for (const name of ['title', 'subtitle', 'slug', 'tags', 'markdown'] as const) {
      const el = form.elements.namedItem(name);
      if ((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.value !== initial[name]) {
        typed[name] = el.value;
        changed = true;
      }
    }
    // What creating the article reported is shown once, like a save's report. Session storage
    // is outside React and exists only in the browser: read once, after hydration.
    const created = takeCreatedReport(postId);
    if (created) callbacks.current.onCreatedReport({ ok: true, created: true, ...created });
    if (changed) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- once, right after hydration
      setFields(typed);
      callbacks.current.onAdopted();
      return;
    }
    // Saving restored text still cannot overwrite a change made elsewhere meanwhile: it keeps its version.
    restoreDraft(initial);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, right after hydration
  }, []);

  // The page is rendered again after this page's own actions (publish, unpublish, save), which
  // give the article a new version. With nothing unsaved, the editor takes the stored fields and
  // that version; with unsaved text it keeps the version the text was based on, so a change made
  // elsewhere is refused on save instead of overwritten.
  // Adjusted while rendering (React's pattern for state that follows a prop), not in an effect.
  const [seenVersion, setSeenVersion] = useState(loadedVersion);
  if (loadedVersion !== seenVersion) {
    setSeenVersion(loadedVersion);
    if (!dirty) {
      // A large article's Markdown is not in the page: the text saved here is the stored one.
      const stored = markdownSource ? { ...initial, markdown: fields.markdown } : initial;
      if (markdownSource) setLoadedMarkdown(fields.markdown);
      setVersion(loadedVersion);
      setFields(stored);
      setBase(stored);
    }
  }

  useEffect(() => {
    if (dirty) writeDraft(postId, { version, fields });
    else clearDraft(postId);
  }, [postId, dirty, version, fields]);

  /** The text as it is now is what is stored at `savedVersion` (a save or a restore succeeded). */
  const markSaved = (saved: ArticleFields, savedVersion: string) => {
    clearDraft(postId);
    setRestored(false);
    setBase(saved);
    setVersion(savedVersion);
  };

  /** Replaces the text and its base with a stored version (the current one, or a restored one). */
  const takeStored = (stored: StoredVersion) => {
    clearDraft(postId);
    const storedFields = normalizedFields({ cover_asset_id: base.cover_asset_id, ...stored.fields });
    setFields(storedFields);
    setBase(storedFields);
    setVersion(stored.version);
    setRestored(false);
  };

  /**
   * Keeps the unsaved text and bases it on the version just compared: the fields changed here
   * stay as typed, the others take the current version's values, and the next Save sends only
   * the changed ones.
   */
  const keepMine = (theirs: StoredVersion) => {
    // A cover chosen here stays chosen (and is sent); the one it replaces is the one it was based on.
    const theirFields = normalizedFields({ cover_asset_id: base.cover_asset_id, ...theirs.fields });
    setFields(mergeKeepingMine(fields, base, theirFields));
    setBase(theirFields);
    setVersion(theirs.version);
  };

  const discardRestored = () => {
    clearDraft(postId);
    setFields(initial);
    setBase(initial);
    setVersion(loadedVersion);
    setRestored(false);
  };

  return {
    /** A large article's Markdown is still loading (the field waits, read-only), or why it failed. */
    loading: loadedMarkdown === null,
    loadProblem,
    fields,
    setFields,
    base,
    version,
    dirty,
    restored,
    changed: () => changedFields(fields, base),
    markSaved,
    takeStored,
    keepMine,
    discardRestored,
  };
}
