'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ArticleFields, EditorFields } from '@/server/console/editor-fields';
import type { RestoreOutcome, SaveOutcome } from '../../actions/articles';
import type { RevisionSummary } from '@/server/model/revision';
import type { LibraryItem } from '@/server/console/media-library';
import { useEditorFields, type CreatedReport, type StoredVersion } from './use-editor-fields';
import { useLeaveGuard } from './use-leave-guard';
import { useLivePreview } from './use-live-preview';
import { useImageUpload } from './use-image-upload';
import { useMediaLibrary } from './use-media-library';
import { ConflictReport } from './conflict-report';
import { lineOf, SaveReport } from './save-report';
import { MarkdownField } from './markdown-field';
import { insertBlockAtCursor, type MarkdownHandle } from './markdown-handle';
import { PreviewPanel } from './preview-panel';
import { CoverPicker, type SavedCover } from './cover-picker';
import { RevisionHistory } from './revision-history';
import { useSaveActions } from './use-save-actions';
import { useHydrated } from '../../components/use-hydrated';
import { useAutosave, type AutosaveState } from './use-autosave';

/**
 * Markdown on the left, the rendered article on the right. The preview is converted on the
 * server (the same pipeline as a write) and shown in a sandboxed frame (use-live-preview.ts);
 * nothing is saved until "Save" (or Ctrl+S), which goes through the same rules as an API edit.
 * Save sends only the fields changed here and the version they are based on (the article's
 * ETag, use-editor-fields.ts): a change made elsewhere meanwhile is never overwritten; the
 * editor then says so and offers to reload or to compare (conflict-report.tsx). Texts are
 * compared with \n line endings, so line endings alone are never a change.
 */
/** The edit form's id, for the action bar's Save outside it. */
const EDIT_FORM_ID = 'edit-article';

export function ArticleEditor({
  postId,
  csrf,
  version: loadedVersion,
  initial: initialRaw,
  savedCover,
  library,
  quotaLeft: initialQuotaLeft,
  revisions,
  revisionsKept,
  markdownSource,
  savedAt,
  publish,
}: {
  postId: string;
  csrf: string;
  version: string;
  initial: ArticleFields;
  /** The saved cover's image (`initial.cover_asset_id`), as the page read it. */
  savedCover: SavedCover | null;
  /** The account's stored media, newest first, for the insert menu. */
  library: LibraryItem[];
  /** Bytes left of today's media quota when the page was rendered. */
  quotaLeft: number;
  /** The article's saved versions, newest first (server/services/posts/revisions.ts), and how many are kept. */
  revisions: RevisionSummary[];
  revisionsKept: number;
  /** A large article's Markdown is not in the page: it is loaded from here after the page shows. */
  markdownSource?: string;
  /** When the working version was last saved, as the page was rendered. */
  savedAt: string;
  /** Publish (and its "What changes"), in the action bar beside Save. */
  publish?: ReactNode;
}) {
  const editForm = useRef<HTMLFormElement>(null);
  const markdownField = useRef<MarkdownHandle>(null);
  const [outcome, setOutcome] = useState<SaveOutcome | RestoreOutcome | CreatedReport | null>(null);
  const [conflict, setConflict] = useState<{ theirs: StoredVersion | null } | null>(null);
  const [pane, setPane] = useState<'edit' | 'preview'>('edit');
  const text = useEditorFields({
    postId,
    loadedVersion,
    initialRaw,
    markdownSource,
    editForm,
    onAdopted: () => preview.markChanged(),
    onCreatedReport: setOutcome,
  });
  const { fields, setFields, version, dirty } = text;
  const previewForm = useRef<HTMLFormElement>(null);
  const preview = useLivePreview({ postId, dirty, fields, markdownField, previewForm });
  const guard = useLeaveGuard(dirty, editForm);
  const hydrated = useHydrated();

  const insertAtCursor = (snippet: string) => insertBlockAtCursor(markdownField.current, snippet);
  const media = useMediaLibrary({ csrf, library, initialQuotaLeft });
  const images = useImageUpload({ library: media, insertAtCursor });
  const { saving, comparing, submitSave, autosave, restore, compare, takeTheirs, lastSavedAt } = useSaveActions({
    postId,
    csrf,
    text,
    preview,
    resetUpload: images.resetUpload,
    setOutcome,
    setConflict,
  });

  const autosaving = useAutosave({
    dirty,
    blocked: saving || text.loading || conflict !== null,
    restored: text.restored,
    changeKey: fields,
    save: autosave,
  });

  // The last save's time: the page's, then each save's (and a restore's) own.
  const lastSaved = lastSavedAt ?? savedAt;

  const update = (name: keyof EditorFields) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setFields((f) => ({ ...f, [name]: e.target.value }));
    preview.markChanged();
  };

  /** A problem's line: the cursor goes to it and the line is selected. */
  const showLine = (line: number) => {
    const lines = fields.markdown.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const end = start + (lines[line - 1]?.length ?? 0);
    setPane('edit');
    markdownField.current?.reveal(start, end);
  };

  return (
    <div className="editor" data-pane={pane}>
      <div className="editor__switch" role="group" aria-label="Show">
        <button type="button" aria-pressed={pane === 'edit'} onClick={() => setPane('edit')}>
          Edit
        </button>
        <button type="button" aria-pressed={pane === 'preview'} onClick={() => setPane('preview')}>
          Preview
        </button>
      </div>
      {/* autoComplete off: the browser would restore the fields on reload on its own, racing the
          unsaved-draft restore (unsaved-draft.ts) before hydration and mixing the two texts. */}
      <form
        id={EDIT_FORM_ID}
        ref={editForm}
        autoComplete="off"
        className="editor__form"
        onSubmit={(e) => {
          e.preventDefault();
          submitSave();
        }}
        aria-label="Edit article"
      >
        <input type="hidden" name="id" value={postId} />
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="version" value={version} />
        <label htmlFor="title">Title</label>
        <input id="title" name="title" value={fields.title} onChange={update('title')} required />
        <label htmlFor="subtitle">Subtitle</label>
        <input id="subtitle" name="subtitle" value={fields.subtitle} onChange={update('subtitle')} />
        <div className="field-row">
          <div>
            <label htmlFor="slug">Slug</label>
            <input id="slug" name="slug" value={fields.slug} onChange={update('slug')} spellCheck={false} />
          </div>
          <div>
            <label htmlFor="tags">Tags</label>
            <input id="tags" name="tags" value={fields.tags} onChange={update('tags')} aria-describedby="tags-help" />
            <small id="tags-help" className="muted">
              Separated by commas
            </small>
          </div>
        </div>
        <MarkdownField
          value={fields.markdown}
          onChange={(markdown) => {
            setFields((f) => ({ ...f, markdown }));
            preview.markChanged();
          }}
          loading={text.loading}
          loadProblem={text.loadProblem}
          field={markdownField}
          images={images}
          onInsert={insertAtCursor}
        />
        {/* Below the Markdown, whose top stays on the first screen (on a phone too). */}
        <CoverPicker
          value={fields.cover_asset_id}
          saved={savedCover}
          library={media}
          onChange={(cover) => {
            setFields((f) => ({ ...f, cover_asset_id: cover }));
            preview.markChanged();
          }}
        />
        {text.restored && (
          <div className="notice" role="status">
            <p>Your unsaved changes from before the reload were restored from this browser tab.</p>
            <button
              type="button"
              onClick={() => {
                text.discardRestored();
                preview.showSaved(loadedVersion);
              }}
            >
              Discard restored changes
            </button>
          </div>
        )}
        {conflict ? (
          <ConflictReport
            message={outcome && !outcome.ok ? outcome.error : ''}
            theirs={conflict.theirs}
            mine={fields}
            base={text.base}
            comparing={comparing}
            onReload={() => {
              // Drops the unsaved text and loads the stored article afresh.
              text.discardRestored();
              guard.allowLeaving();
              window.location.reload();
            }}
            onCompare={compare}
            onKeepMine={(theirs) => {
              text.keepMine(theirs);
              setConflict(null);
              setOutcome(null);
            }}
            onTakeTheirs={takeTheirs}
          />
        ) : (
          <SaveReport
            outcome={outcome}
            onRetry={() => submitSave(true)}
            onShowLine={showLine}
            lineOf={(t) => lineOf(fields.markdown, t)}
          />
        )}
      </form>
      {/* The action bar stays on screen at every width (fixed to the bottom of the window): the
          save state, Save and Publish with what it changes, wherever the writer has scrolled.
          Outside the edit form (Save names it): Publish's dialog has a form of its own, and a
          form inside a form is dropped by the HTML parser. */}
      <div className="editor__actions action-bar" role="group" aria-label="Save and publish">
        {/* Disabled until hydrated: before then Save (or Enter in a field) would submit the form
            natively, as a GET carrying the text and the CSRF token in the address. */}
        <button
          type="submit"
          form={EDIT_FORM_ID}
          className="primary"
          disabled={!hydrated}
          aria-disabled={saving || undefined}
          title="Save (Ctrl+S)"
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
        {/* Publish before the state, whose text changes: the buttons never move under the pointer. */}
        {publish && <div className="action-bar__publish">{publish}</div>}
        <SaveState dirty={dirty} saving={saving} savedAt={lastSaved} autosave={autosaving.state} />
        <label className="action-bar__autosave">
          <input
            type="checkbox"
            checked={autosaving.enabled}
            onChange={(e) => autosaving.toggle(e.target.checked)}
            disabled={!hydrated}
          />
          Autosave
        </label>
      </div>
      <PreviewPanel
        postId={postId}
        csrf={csrf}
        state={preview.state}
        savedSrc={preview.savedSrc}
        savedKey={preview.savedKey}
        formRef={previewForm}
      />
      <RevisionHistory
        postId={postId}
        revisions={revisions}
        kept={revisionsKept}
        unsaved={dirty}
        restoring={saving}
        onRestore={restore}
      />
    </div>
  );
}

/**
 * "Unsaved changes", "Saving…" or "All changes saved", with how long ago the last save was, and
 * when autosave waits for the next minute's writes, how long it waits.
 */
function SaveState({
  dirty,
  saving,
  savedAt,
  autosave,
}: {
  dirty: boolean;
  saving: boolean;
  savedAt: string;
  autosave: AutosaveState;
}) {
  const now = useNow(5_000);
  const ago = now === null ? null : agoText(now - new Date(savedAt).getTime());
  const waits = autosave.kind === 'waiting' && now !== null ? Math.ceil((autosave.until - now) / 1000) : 0;
  return (
    <span className="action-bar__state muted" aria-live="polite">
      {saving ? (
        'Saving…'
      ) : dirty ? (
        <>
          <span>Unsaved changes</span>
          {waits > 0 && (
            <span
              className="action-bar__ago"
              title="Autosave leaves at least half of each minute's writes to your integrations"
            >
              {' '}
              · autosave waits for the next minute
            </span>
          )}
        </>
      ) : (
        <>
          <span>All changes saved</span>
          {ago && <span className="action-bar__ago"> · saved {ago}</span>}
        </>
      )}
    </span>
  );
}

/** The clock, read every `ms` in the browser only (null in the server's HTML, which cannot know it). */
function useNow(ms: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, ms);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [ms]);
  return now;
}

function agoText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h ago` : `${Math.round(h / 24)} days ago`;
}
