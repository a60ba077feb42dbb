'use client';

import { useState, useTransition } from 'react';
import {
  loadStoredFields,
  restoreRevision,
  saveArticle,
  type RestoreOutcome,
  type SaveOutcome,
} from '../../actions/articles';
import type { RevisionSummary } from '@/server/model/revision';
import type { StoredVersion, useEditorFields } from './use-editor-fields';
import type { useLivePreview } from './use-live-preview';
import { noteSaved } from './unsaved-state';
import type { AutosaveResult } from './use-autosave';
import type { ArticleFields } from '@/server/console/editor-fields';

type Outcome = SaveOutcome | RestoreOutcome;

/**
 * The editor's round trips to the server: Save (only the fields changed here, with the version
 * they are based on as If-Match), Restore of an older revision (a save like any other, with the
 * same report), and loading the current version to compare after a refused save. Each outcome
 * goes to the editor's report; a refusal because the article changed elsewhere opens the
 * conflict view.
 */
export function useSaveActions({
  postId,
  csrf,
  text,
  preview,
  resetUpload,
  setOutcome,
  setConflict,
}: {
  postId: string;
  csrf: string;
  text: ReturnType<typeof useEditorFields>;
  preview: ReturnType<typeof useLivePreview>;
  resetUpload: () => void;
  setOutcome: (outcome: Outcome | null) => void;
  setConflict: (conflict: { theirs: StoredVersion | null } | null) => void;
}) {
  const [saving, startSaving] = useTransition();
  const [comparing, startComparing] = useTransition();
  // When this page last saved (a save, an autosave, a restore); null until it has.
  const [lastSavedAt, setLastSavedAt] = useState<string | null>(null);
  const { fields, version, dirty } = text;

  /** The save's form: the fields changed here (all of Markdown when nothing else changed). */
  const saveForm = (sent: ArticleFields, retryImages: boolean) => {
    const changed = new Set(text.changed());
    if (retryImages || changed.size === 0) changed.add('markdown');
    const data = new FormData();
    data.set('id', postId);
    data.set('csrf', csrf);
    data.set('version', version);
    for (const k of changed) data.set(k, sent[k]);
    return data;
  };

  const saved = (sent: ArticleFields, result: SaveOutcome & { ok: true }) => {
    text.markSaved(sent, result.version);
    preview.showSaved(result.updatedAt);
    setLastSavedAt(result.updatedAt);
    noteSaved();
  };

  /**
   * Sends the fields changed here (all of Markdown when retrying failed images: the save is what
   * copies them). The button is never disabled while saving, so the focus stays on it.
   */
  const submitSave = (retryImages = false) => {
    if (saving || text.loading) return;
    const sent = { ...fields };
    const data = saveForm(sent, retryImages);
    resetUpload();
    startSaving(async () => {
      const result = await saveArticle(data);
      setOutcome(result);
      setConflict(!result.ok && result.conflict ? { theirs: null } : null);
      if (result.ok) saved(sent, result);
    });
  };

  /**
   * The same save, made by autosave (use-autosave.ts) with the editor visit's id. A plain success
   * says nothing beyond the action bar's "saved just now"; a report worth reading (warnings,
   * images not copied, markup removed) and a refusal show as after Save. The server's "wait for
   * the next minute" is not a problem to show: the action bar says autosave waits.
   */
  const autosave = (visit: string) =>
    new Promise<AutosaveResult>((resolve) => {
      if (saving || text.loading) return resolve({});
      const sent = { ...fields };
      const data = saveForm(sent, false);
      data.set('autosave', visit);
      startSaving(async () => {
        const result = await saveArticle(data);
        if (result.ok) {
          saved(sent, result);
          setOutcome(hasReport(result) ? result : null);
          resolve({});
        } else if (result.autosaveWaits) {
          resolve({ waitSeconds: result.autosaveWaits });
        } else {
          setOutcome(result);
          setConflict(result.conflict ? { theirs: null } : null);
          resolve({ refused: true });
        }
      });
    });

  /** A saved version made the working version again: a save like any other, with its report. */
  const restore = (revision: RevisionSummary) => {
    if (saving || dirty) return;
    const data = new FormData();
    data.set('id', postId);
    data.set('csrf', csrf);
    data.set('version', version);
    data.set('revision', revision.id);
    resetUpload();
    startSaving(async () => {
      const result = await restoreRevision(data);
      setOutcome(result);
      setConflict(!result.ok && result.conflict ? { theirs: null } : null);
      if (result.ok) {
        text.takeStored({ version: result.version, fields: result.fields });
        preview.showSaved(result.updatedAt);
        setLastSavedAt(result.updatedAt);
        noteSaved();
      }
    });
  };

  const compare = () => {
    const data = new FormData();
    data.set('id', postId);
    data.set('csrf', csrf);
    startComparing(async () => {
      const result = await loadStoredFields(data);
      if (result.ok) setConflict({ theirs: { version: result.version, fields: result.fields } });
      else setOutcome(result);
    });
  };

  const takeTheirs = (theirs: StoredVersion) => {
    text.takeStored(theirs);
    setConflict(null);
    setOutcome(null);
    preview.showSaved(theirs.version);
  };

  return { saving, comparing, submitSave, autosave, restore, compare, takeTheirs, lastSavedAt };
}

/** A save's report says more than "saved": images not copied, warnings, markup removed. */
function hasReport(result: SaveOutcome & { ok: true }): boolean {
  return result.failedImages.length > 0 || result.warnings.length > 0 || result.removed.length > 0;
}
