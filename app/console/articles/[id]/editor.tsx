'use client';

import { useEffect, useRef, useState, useTransition } from 'react';
import type { EditorFields } from '@/server/console/editor-fields';
import { loadStoredFields, saveArticle, type SaveOutcome } from '../../actions/articles';
import { ReaderWidths } from '../../components/reader-widths';
import { formatBytes } from '../../components/format';
import { clearDraft, readDraft, writeDraft } from './unsaved-draft';
import { InsertMenu } from './insert-menu';
import { insertBlock, type LibraryItem } from './island-snippets';
import { refuseBeforeUpload, uploadImage } from './image-upload';

const PREVIEW_DELAY_MS = 600;

/**
 * Markdown on the left, the rendered article on the right. The preview is converted on the
 * server (the same pipeline as a write) and shown in a sandboxed frame: typing posts the draft
 * to /console/preview/live into that frame after a pause; nothing is saved until "Save", which
 * goes through the same rules as PATCH /posts/{id}. Save sends the version it started from
 * (`version`, the article's ETag): a change made elsewhere meanwhile is never overwritten; the
 * editor then says so and offers to reload or to compare. Unsaved fields are kept in this tab's
 * session storage, so a reload does not lose them, and leaving with unsaved text asks first.
 */
export function ArticleEditor({
  postId,
  csrf,
  version: loadedVersion,
  initial,
  library,
  quotaLeft: initialQuotaLeft,
}: {
  postId: string;
  csrf: string;
  version: string;
  initial: EditorFields;
  /** The account's stored media, newest first, for the insert menu. */
  library: LibraryItem[];
  /** Bytes left of today's media quota when the page was rendered. */
  quotaLeft: number;
}) {
  const [fields, setFields] = useState(initial);
  const [version, setVersion] = useState(loadedVersion);
  const [dirty, setDirty] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const [saving, startSaving] = useTransition();
  const [savedVersion, setSavedVersion] = useState('');
  const [previewState, setPreviewState] = useState<'saved' | 'pending' | 'live'>('saved');
  const [restored, setRestored] = useState(false);
  const [conflict, setConflict] = useState<ConflictState>(null);
  const [comparing, startComparing] = useTransition();
  const leaving = useRef(false);
  const markdownField = useRef<HTMLTextAreaElement>(null);
  const [upload, setUpload] = useState<UploadState>({ phase: 'idle' });
  const [quotaLeft, setQuotaLeft] = useState(initialQuotaLeft);
  const [media, setMedia] = useState(library);
  const previewForm = useRef<HTMLFormElement>(null);
  const editForm = useRef<HTMLFormElement>(null);
  const frameName = `live-preview-${postId}`;

  // Text typed before React hydrated the form fired no onChange: adopt it once on mount, so
  // it is neither lost on the next render nor left out of the live preview.
  useEffect(() => {
    const form = editForm.current;
    if (!form) return;
    const typed = { ...initial };
    let changed = false;
    for (const name of Object.keys(initial) as (keyof EditorFields)[]) {
      const el = form.elements.namedItem(name);
      if ((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.value !== initial[name]) {
        typed[name] = el.value;
        changed = true;
      }
    }
    if (changed) {
      setFields(typed);
      setDirty(true);
      setPreviewState('pending');
      return;
    }
    // Text left unsaved in this tab before a reload comes back, with the version it was based on,
    // so saving it still cannot overwrite a change made elsewhere meanwhile.
    const draft = readDraft(postId);
    if (draft && (Object.keys(initial) as (keyof EditorFields)[]).some((k) => draft.fields[k] !== initial[k])) {
      // Session storage is outside React and exists only in the browser: read once, after hydration.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setFields(draft.fields);
      setVersion(draft.version);
      setDirty(true);
      setRestored(true);
      setPreviewState('pending');
    } else if (draft) {
      clearDraft(postId);
    }
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
      setVersion(loadedVersion);
      setFields(initial);
    }
  }

  useEffect(() => {
    if (dirty) writeDraft(postId, { version, fields });
  }, [postId, dirty, version, fields]);

  // Leaving with unsaved text asks first: the browser's own prompt for reloads, closing and
  // typed addresses; a confirmation for the console's own links, which navigate without unloading.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (leaving.current) return;
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || link.target || e.defaultPrevented) return;
      if (new URL(link.href).origin !== window.location.origin) return;
      if (!window.confirm('You have unsaved changes. Leave this page without saving them?')) e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);

  // Debounced live preview: each change restarts the timer; the hidden form then posts the
  // current fields into the preview frame.
  useEffect(() => {
    if (!dirty) return;
    const timer = setTimeout(() => {
      previewForm.current?.requestSubmit();
      setPreviewState('live');
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [fields, dirty]);

  const update = (name: keyof EditorFields) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setFields((f) => ({ ...f, [name]: e.target.value }));
    setDirty(true);
    setPreviewState('pending');
  };

  const save = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startSaving(async () => {
      const result = await saveArticle(data);
      setOutcome(result);
      setConflict(!result.ok && result.conflict ? { theirs: null } : null);
      if (result.ok) {
        clearDraft(postId);
        setRestored(false);
        setDirty(false);
        setVersion(result.version);
        setSavedVersion(result.updatedAt);
        setPreviewState('saved');
      }
    });
  };

  /** Writes a block of markup at the Markdown field's cursor (or replaces its selection). */
  const insertAtCursor = (snippet: string) => {
    const el = markdownField.current;
    const start = el?.selectionStart ?? fields.markdown.length;
    const end = el?.selectionEnd ?? start;
    const next = insertBlock(fields.markdown, start, end, snippet);
    setFields((f) => ({ ...f, markdown: next.text }));
    setDirty(true);
    setPreviewState('pending');
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(next.cursor, next.cursor);
    });
  };

  /** An image file dropped or pasted into the Markdown field: stored, then its snippet inserted. */
  const uploadFiles = (files: FileList) => {
    const file = Array.from(files).find((f) => f.type.startsWith('image/')) ?? files[0];
    if (!file) return;
    const refusal = refuseBeforeUpload(file, quotaLeft);
    if (refusal) return setUpload({ phase: 'failed', error: refusal });
    setUpload({ phase: 'uploading', name: file.name, loaded: 0, total: file.size });
    uploadImage(file, csrf, (loaded, total) => setUpload({ phase: 'uploading', name: file.name, loaded, total }))
      .then((stored) => {
        insertAtCursor(stored.snippet);
        setQuotaLeft((q) => Math.max(0, q - stored.byteSize));
        const id = /\/api\/media\/([0-9a-f-]{36})/.exec(stored.snippet)?.[1];
        if (id && !stored.snippet.includes('dp-gif'))
          setMedia((m) => [{ id, kind: 'image', width: stored.width, height: stored.height }, ...m]);
        setUpload({
          phase: 'done',
          message: `Stored ${file.name} (${stored.width}×${stored.height}) and inserted it.`,
        });
      })
      .catch((err: unknown) => setUpload({ phase: 'failed', error: err instanceof Error ? err.message : String(err) }));
  };

  /** Drops the unsaved text and loads the stored article afresh. */
  const reload = () => {
    clearDraft(postId);
    leaving.current = true;
    window.location.reload();
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

  /** Keeps the unsaved text and bases it on the version just compared: the next Save replaces it. */
  const keepMine = (theirVersion: string) => {
    setVersion(theirVersion);
    setConflict(null);
    setOutcome(null);
  };

  const takeTheirs = (theirs: { version: string; fields: EditorFields }) => {
    clearDraft(postId);
    setFields(theirs.fields);
    setVersion(theirs.version);
    setDirty(false);
    setRestored(false);
    setConflict(null);
    setOutcome(null);
    setPreviewState('saved');
    setSavedVersion(theirs.version);
  };

  const discardRestored = () => {
    clearDraft(postId);
    setFields(initial);
    setVersion(loadedVersion);
    setDirty(false);
    setRestored(false);
    setPreviewState('saved');
  };

  const previewLabel =
    previewState === 'saved'
      ? 'Preview of the saved working version'
      : previewState === 'pending'
        ? 'Updating preview…'
        : 'Live preview of your unsaved text';

  return (
    <div className="editor">
      <form ref={editForm} className="editor__form" onSubmit={save} aria-label="Edit article">
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
        <div className="markdown-head">
          <label htmlFor="markdown">Markdown</label>
          <InsertMenu library={media} onInsert={insertAtCursor} />
        </div>
        <textarea
          ref={markdownField}
          id="markdown"
          name="markdown"
          value={fields.markdown}
          onChange={update('markdown')}
          aria-describedby="markdown-help"
          onDragOver={(e) => {
            if (e.dataTransfer.types.includes('Files')) e.preventDefault();
          }}
          onDrop={(e) => {
            if (e.dataTransfer.files.length === 0) return;
            e.preventDefault();
            uploadFiles(e.dataTransfer.files);
          }}
          onPaste={(e) => {
            if (e.clipboardData.files.length === 0) return;
            e.preventDefault();
            uploadFiles(e.clipboardData.files);
          }}
          rows={24}
          spellCheck={false}
          required
        />
        <p id="markdown-help" className="muted">
          Drop or paste an image file here to store and insert it. Today&apos;s media quota left:{' '}
          <span data-testid="quota-left" data-bytes={quotaLeft}>
            {formatBytes(quotaLeft)}
          </span>
          .
        </p>
        <UploadReport state={upload} />
        <div className="editor__actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          <span className="muted" aria-live="polite">
            {dirty ? 'Unsaved changes' : outcome?.ok ? 'All changes saved' : ''}
          </span>
        </div>
        {restored && (
          <div className="notice" role="status">
            <p>Your unsaved changes from before the reload were restored from this browser tab.</p>
            <button type="button" onClick={discardRestored}>
              Discard restored changes
            </button>
          </div>
        )}
        {conflict ? (
          <ConflictReport
            message={outcome && !outcome.ok ? outcome.error : ''}
            theirs={conflict.theirs}
            mine={fields}
            comparing={comparing}
            onReload={reload}
            onCompare={compare}
            onKeepMine={keepMine}
            onTakeTheirs={takeTheirs}
          />
        ) : (
          <SaveReport outcome={outcome} />
        )}
      </form>

      <section className="editor__preview" aria-label="Preview">
        <h2 className="preview-label" aria-live="polite">
          {previewLabel}
        </h2>
        <ReaderWidths>
          <iframe
            name={frameName}
            title="Article preview"
            sandbox=""
            className="preview-frame"
            src={`/console/preview/${postId}${savedVersion ? `?v=${encodeURIComponent(savedVersion)}` : ''}`}
            key={savedVersion}
          />
        </ReaderWidths>
      </section>

      {/* Posts the unsaved fields into the frame; the route answers with a CSP-sandboxed page. */}
      <form ref={previewForm} method="post" action="/console/preview/live" target={frameName} hidden>
        <input type="hidden" name="id" value={postId} />
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="title" value={fields.title} />
        <input type="hidden" name="subtitle" value={fields.subtitle} />
        <input type="hidden" name="tags" value={fields.tags} />
        <input type="hidden" name="markdown" value={fields.markdown} />
      </form>
    </div>
  );
}

type UploadState =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; loaded: number; total: number }
  | { phase: 'done'; message: string }
  | { phase: 'failed'; error: string };

function UploadReport({ state }: { state: UploadState }) {
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

type StoredVersion = { version: string; fields: EditorFields };
type ConflictState = { theirs: StoredVersion | null } | null;

const FIELD_LABELS: Record<keyof EditorFields, string> = {
  title: 'Title',
  subtitle: 'Subtitle',
  slug: 'Slug',
  tags: 'Tags',
  markdown: 'Markdown',
};

/** A save refused because the article changed elsewhere: what happened, and the ways on. */
function ConflictReport({
  message,
  theirs,
  mine,
  comparing,
  onReload,
  onCompare,
  onKeepMine,
  onTakeTheirs,
}: {
  message: string;
  theirs: StoredVersion | null;
  mine: EditorFields;
  comparing: boolean;
  onReload: () => void;
  onCompare: () => void;
  onKeepMine: (version: string) => void;
  onTakeTheirs: (theirs: StoredVersion) => void;
}) {
  const differing = theirs
    ? (Object.keys(FIELD_LABELS) as (keyof EditorFields)[]).filter((k) => theirs.fields[k] !== mine[k])
    : [];
  return (
    <div className="warning-box conflict" role="alert">
      <p>
        <strong>Not saved: this article changed elsewhere.</strong> {message}
      </p>
      <p>Your text is still here; nothing was lost.</p>
      <div className="actions">
        <button type="button" onClick={onReload}>
          Reload the current version
        </button>
        <button type="button" onClick={onCompare} disabled={comparing}>
          {comparing ? 'Loading…' : 'Compare with the current version'}
        </button>
      </div>
      {theirs && (
        <section aria-label="Your text and the current version">
          {differing.length === 0 ? (
            <p>The current version has the same fields as your text.</p>
          ) : (
            differing.map((k) => (
              <div key={k} className="conflict__field">
                <h3>{FIELD_LABELS[k]}</h3>
                <div className="field-row">
                  <div>
                    <label htmlFor={`conflict-theirs-${k}`}>Current version (saved elsewhere)</label>
                    <textarea
                      id={`conflict-theirs-${k}`}
                      readOnly
                      value={theirs.fields[k]}
                      rows={k === 'markdown' ? 10 : 2}
                    />
                  </div>
                  <div>
                    <label htmlFor={`conflict-mine-${k}`}>Your unsaved text</label>
                    <textarea id={`conflict-mine-${k}`} readOnly value={mine[k]} rows={k === 'markdown' ? 10 : 2} />
                  </div>
                </div>
              </div>
            ))
          )}
          <div className="actions">
            <button type="button" onClick={() => onKeepMine(theirs.version)}>
              Keep my text (the next Save replaces the current version)
            </button>
            <button type="button" onClick={() => onTakeTheirs(theirs)}>
              Use the current version (drop my text)
            </button>
          </div>
        </section>
      )}
    </div>
  );
}

function SaveReport({ outcome }: { outcome: SaveOutcome | null }) {
  if (!outcome) return null;
  if (!outcome.ok) {
    return (
      <p className="error" role="alert">
        Not saved. {outcome.error}
      </p>
    );
  }
  return (
    <div role="status">
      <p className="success">Saved.</p>
      {outcome.failedImages.length > 0 && (
        <div className="warning-box">
          <h3>Images that could not be copied into storage</h3>
          <p>
            These images still point to their original address (rehost_failed). Readers&apos; browsers would load them
            from there, if at all.
          </p>
          <ul className="problem-list">
            {outcome.failedImages.map((img) => (
              <li key={img.url}>
                <code>{img.url}</code>
                <p>{img.reason}</p>
                <button type="submit" aria-label={`Retry copying ${img.url}`}>
                  Retry
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {outcome.warnings.length > 0 && (
        <div className="warning-box">
          <h3>Warnings</h3>
          <ul className="problem-list">
            {outcome.warnings.map((w) => (
              <li key={w.text}>
                <code>{w.text}</code>
                {w.explanation && <p>{w.explanation}</p>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {outcome.removed.length > 0 && (
        <div className="warning-box">
          <h3>Removed from your HTML</h3>
          <p>The sanitizer took these out of the saved article, so readers will not see them:</p>
          <ul className="problem-list">
            {outcome.removed.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
