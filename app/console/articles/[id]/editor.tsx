'use client';

import { useEffect, useRef, useState, useTransition } from 'react';
import type { EditorFields } from '@/server/console/editor-fields';
import { loadStoredFields, saveArticle, type SaveOutcome, type WriteReport } from '../../actions/articles';
import { PREVIEW_CURSOR_ID } from '@/server/console/preview-cursor';
import { ReaderWidths } from '../../components/reader-widths';
import { formatBytes } from '../../components/format';
import { clearDraft, readDraft, writeDraft } from './unsaved-draft';
import { InsertMenu } from './insert-menu';
import { insertBlock, type LibraryItem } from './island-snippets';
import { altFromFileName, refuseBeforeUpload, uploadImage, withAltText, type Uploaded } from './image-upload';
import { changedFields, keepMine as mergeKeepingMine, normalizedFields } from './field-changes';
import { setUnsavedText } from './unsaved-state';
import { takeCreatedReport } from './created-report';

const PREVIEW_DELAY_MS = 600;

/**
 * Markdown on the left, the rendered article on the right. The preview is converted on the
 * server (the same pipeline as a write) and shown in a sandboxed frame: typing posts the draft
 * to /console/preview/live into that frame after a pause, with the cursor's place so the frame
 * shows the part being edited; nothing is saved until "Save" (or Ctrl+S), which goes through the
 * same rules as an API edit. Save sends only the fields changed here and the version they are
 * based on (`version`, the article's ETag): a change made elsewhere meanwhile is never
 * overwritten; the editor then says so and offers to reload or to compare. Texts are compared
 * with \n line endings, so line endings alone are never a change. Unsaved fields are kept in this
 * tab's session storage, so a reload does not lose them, and leaving with unsaved text asks first.
 */
export function ArticleEditor({
  postId,
  csrf,
  version: loadedVersion,
  initial: initialRaw,
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
  const initial = normalizedFields(initialRaw);
  const [fields, setFields] = useState(initial);
  // The stored fields the text is based on: what differs from them is the maintainer's change.
  const [base, setBase] = useState(initial);
  const [version, setVersion] = useState(loadedVersion);
  const dirty = changedFields(fields, base).length > 0;
  const [outcome, setOutcome] = useState<SaveOutcome | CreatedOutcome | null>(null);
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
  const [altPrompt, setAltPrompt] = useState<AltPrompt | null>(null);
  const [pane, setPane] = useState<'edit' | 'preview'>('edit');
  const previewForm = useRef<HTMLFormElement>(null);
  const previewCursor = useRef<HTMLInputElement>(null);
  const editForm = useRef<HTMLFormElement>(null);
  const filePicker = useRef<HTMLInputElement>(null);
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
    // What creating the article reported is shown once, like a save's report. Session storage
    // is outside React and exists only in the browser: read once, after hydration.
    const created = takeCreatedReport(postId);
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (created) setOutcome({ ok: true, created: true, ...created });
    if (changed) {
      setFields(typed);
      setPreviewState('pending');
      return;
    }
    // Text left unsaved in this tab before a reload comes back, with the version it was based on,
    // so saving it still cannot overwrite a change made elsewhere meanwhile.
    const draft = readDraft(postId);
    if (draft && changedFields(draft.fields, initial).length > 0) {
      setFields(draft.fields);
      setVersion(draft.version);
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
      setBase(initial);
    }
  }

  useEffect(() => {
    if (dirty) writeDraft(postId, { version, fields });
    else clearDraft(postId);
  }, [postId, dirty, version, fields]);

  // Publish (in the page's header) publishes the saved text only: it needs to know.
  useEffect(() => {
    setUnsavedText(dirty);
    return () => setUnsavedText(false);
  }, [dirty]);

  // Ctrl+S (⌘S) saves, wherever the focus is on this page; the focus stays where it was.
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      editForm.current?.requestSubmit();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

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
      if (previewCursor.current) previewCursor.current.value = String(markdownField.current?.selectionStart ?? '');
      previewForm.current?.requestSubmit();
      setPreviewState('live');
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [fields, dirty]);

  const update = (name: keyof EditorFields) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setFields((f) => ({ ...f, [name]: e.target.value }));
    setPreviewState('pending');
  };

  /**
   * Sends the fields changed here (all of Markdown when retrying failed images: the save is what
   * copies them). The button is never disabled while saving, so the focus stays on it.
   */
  const submitSave = (retryImages = false) => {
    if (saving) return;
    const sent = { ...fields };
    const changed = new Set(changedFields(sent, base));
    if (retryImages || changed.size === 0) changed.add('markdown');
    const data = new FormData();
    data.set('id', postId);
    data.set('csrf', csrf);
    data.set('version', version);
    for (const k of changed) data.set(k, sent[k]);
    setUpload({ phase: 'idle' });
    startSaving(async () => {
      const result = await saveArticle(data);
      setOutcome(result);
      setConflict(!result.ok && result.conflict ? { theirs: null } : null);
      if (result.ok) {
        clearDraft(postId);
        setRestored(false);
        setBase(sent);
        setVersion(result.version);
        setSavedVersion(result.updatedAt);
        setPreviewState('saved');
      }
    });
  };

  const save = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    submitSave();
  };

  /** A problem's line: the cursor goes to it and the line is selected. */
  const showLine = (line: number) => {
    const el = markdownField.current;
    if (!el) return;
    const lines = fields.markdown.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const end = start + (lines[line - 1]?.length ?? 0);
    setPane('edit');
    el.focus();
    el.setSelectionRange(start, end);
    // Put the line in view: its share of the text, as the field scrolls.
    el.scrollTop = Math.max(0, (el.scrollHeight * (line - 1)) / Math.max(1, lines.length) - el.clientHeight / 3);
  };

  /** Writes a block of markup at the Markdown field's cursor (or replaces its selection). */
  const insertAtCursor = (snippet: string) => {
    const el = markdownField.current;
    const start = el?.selectionStart ?? fields.markdown.length;
    const end = el?.selectionEnd ?? start;
    const next = insertBlock(fields.markdown, start, end, snippet);
    setFields((f) => ({ ...f, markdown: next.text }));
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
        setQuotaLeft((q) => Math.max(0, q - stored.byteSize));
        const id = /\/api\/media\/([0-9a-f-]{36})/.exec(stored.snippet)?.[1];
        const kind = stored.snippet.includes('dp-gif') ? 'gif' : 'image';
        if (id) setMedia((m) => [{ id, kind, width: stored.width, height: stored.height, name: file.name }, ...m]);
        if (kind === 'gif') {
          insertAtCursor(stored.snippet);
          setUpload({ phase: 'done', message: `Stored ${file.name} as a looping video and inserted it.` });
          return;
        }
        // An image needs words for readers who cannot see it: asked for before inserting.
        setUpload({ phase: 'done', message: `Stored ${file.name} (${stored.width}×${stored.height}).` });
        setAltPrompt({ stored, name: file.name, alt: altFromFileName(file.name) });
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

  const insertImage = (prompt: AltPrompt) => {
    insertAtCursor(withAltText(prompt.stored.snippet, prompt.alt));
    setAltPrompt(null);
    setUpload({ phase: 'done', message: `Inserted ${prompt.name}.` });
  };

  /**
   * Keeps the unsaved text and bases it on the version just compared: the fields changed here
   * stay as typed, the others take the current version's values, and the next Save sends only
   * the changed ones.
   */
  const keepMine = (theirs: StoredVersion) => {
    const theirFields = normalizedFields(theirs.fields);
    setFields(mergeKeepingMine(fields, base, theirFields));
    setBase(theirFields);
    setVersion(theirs.version);
    setConflict(null);
    setOutcome(null);
  };

  const takeTheirs = (theirs: StoredVersion) => {
    clearDraft(postId);
    const theirFields = normalizedFields(theirs.fields);
    setFields(theirFields);
    setBase(theirFields);
    setVersion(theirs.version);
    setRestored(false);
    setConflict(null);
    setOutcome(null);
    setPreviewState('saved');
    setSavedVersion(theirs.version);
  };

  const discardRestored = () => {
    clearDraft(postId);
    setFields(initial);
    setBase(initial);
    setVersion(loadedVersion);
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
    <div className="editor" data-pane={pane}>
      <div className="editor__switch" role="group" aria-label="Show">
        <button type="button" aria-pressed={pane === 'edit'} onClick={() => setPane('edit')}>
          Edit
        </button>
        <button type="button" aria-pressed={pane === 'preview'} onClick={() => setPane('preview')}>
          Preview
        </button>
      </div>
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
          <div className="markdown-head__tools">
            <button type="button" onClick={() => filePicker.current?.click()}>
              Add image from file…
            </button>
            <input
              ref={filePicker}
              type="file"
              accept="image/jpeg,image/png,image/webp,image/avif,image/gif"
              hidden
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => {
                if (e.target.files?.length) uploadFiles(e.target.files);
                e.target.value = '';
              }}
            />
            <InsertMenu library={media} onInsert={insertAtCursor} />
          </div>
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
          Drop or paste an image file here, or add one from a file, to store and insert it. Today&apos;s media quota
          left:{' '}
          <span data-testid="quota-left" data-bytes={quotaLeft}>
            {formatBytes(quotaLeft)}
          </span>
          .
        </p>
        <UploadReport state={upload} />
        {altPrompt && (
          <AltTextPrompt
            prompt={altPrompt}
            onChange={(alt) => setAltPrompt({ ...altPrompt, alt })}
            onInsert={() => insertImage(altPrompt)}
            onCancel={() => {
              setAltPrompt(null);
              setUpload({ phase: 'done', message: `${altPrompt.name} is stored under Media; it was not inserted.` });
            }}
          />
        )}
        <div className="editor__actions">
          <button type="submit" className="primary" aria-disabled={saving || undefined} title="Save (Ctrl+S)">
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
          <SaveReport
            outcome={outcome}
            onRetry={() => submitSave(true)}
            onShowLine={showLine}
            lineOf={(text) => lineOf(fields.markdown, text)}
          />
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

      {/* Posts the unsaved fields into the frame; the route answers with a CSP-sandboxed page that
          opens at the cursor's place (the fragment names the anchor it puts there). */}
      <form
        ref={previewForm}
        method="post"
        action={`/console/preview/live#${PREVIEW_CURSOR_ID}`}
        target={frameName}
        hidden
      >
        <input type="hidden" name="id" value={postId} />
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="title" value={fields.title} />
        <input type="hidden" name="subtitle" value={fields.subtitle} />
        <input type="hidden" name="tags" value={fields.tags} />
        <input type="hidden" name="markdown" value={fields.markdown} />
        <input ref={previewCursor} type="hidden" name="cursor" defaultValue="" />
      </form>
    </div>
  );
}

type AltPrompt = { stored: Uploaded; name: string; alt: string };

/** Words for readers who cannot see the image, asked for before it goes into the text. */
function AltTextPrompt({
  prompt,
  onChange,
  onInsert,
  onCancel,
}: {
  prompt: AltPrompt;
  onChange: (alt: string) => void;
  onInsert: () => void;
  onCancel: () => void;
}) {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  return (
    <div className="notice alt-prompt" role="group" aria-label="Image to insert">
      <label htmlFor="alt-prompt">
        Alternative text for {prompt.name} (what it shows, for readers who cannot see it)
      </label>
      <input
        ref={field}
        id="alt-prompt"
        value={prompt.alt}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault(); // inserts; must not submit the article form around it
            onInsert();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          }
        }}
      />
      <div className="actions">
        <button type="button" className="primary" onClick={onInsert}>
          Insert image
        </button>
        <button type="button" onClick={onCancel}>
          Do not insert
        </button>
      </div>
    </div>
  );
}

/** What creating the article reported, shown like a save's report until the next save. */
type CreatedOutcome = { ok: true; created: true } & WriteReport;

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
  onKeepMine: (theirs: StoredVersion) => void;
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
            <button type="button" onClick={() => onKeepMine(theirs)}>
              Keep my text (my changed fields replace theirs on the next Save; the rest stays as it is now)
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

/** The 1-based line of the first place `text` is written in the Markdown, or null. */
function lineOf(markdown: string, text: string): number | null {
  const at = markdown.indexOf(text);
  return at === -1 ? null : markdown.slice(0, at).split('\n').length;
}

function SaveReport({
  outcome,
  onRetry,
  onShowLine,
  lineOf: lineOfText,
}: {
  outcome: SaveOutcome | CreatedOutcome | null;
  onRetry: () => void;
  onShowLine: (line: number) => void;
  lineOf: (text: string) => number | null;
}) {
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
      <p className="success">
        {'created' in outcome ? 'Draft created. Edit it below; publish when it reads right.' : 'Saved.'}
      </p>
      {outcome.failedImages.length > 0 && (
        <div className="warning-box">
          <h3>Images that could not be copied into storage</h3>
          <p>
            These images still point to their original address. Readers&apos; browsers would load them from there, if at
            all.
          </p>
          <ul className="problem-list">
            {outcome.failedImages.map((img) => {
              const line = lineOfText(img.url);
              return (
                <li key={img.url}>
                  {line !== null && (
                    <>
                      <button type="button" className="link-button" onClick={() => onShowLine(line)}>
                        Line {line}
                      </button>
                      :{' '}
                    </>
                  )}
                  <code>{img.url}</code>
                  <p>{img.reason}</p>
                  {img.retryable && (
                    <button type="button" onClick={onRetry} aria-label={`Retry copying ${img.url}`}>
                      Retry
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {outcome.warnings.length > 0 && (
        <div className="warning-box">
          <h3>Warnings</h3>
          <ul className="problem-list">
            {outcome.warnings.map((w) => (
              <li key={w.text}>{w.explanation ? <p>{w.explanation}</p> : <code>{w.text}</code>}</li>
            ))}
          </ul>
        </div>
      )}
      {outcome.removed.length > 0 && (
        <div className="warning-box">
          <h3>Removed from what readers see</h3>
          <p>
            Your Markdown still has these, but the sanitizer took them out of the page readers get (delete them from
            the text, or leave them: they will not show):
          </p>
          <ul className="problem-list">
            {outcome.removed.map((r) => (
              <li key={`${r.line}:${r.text}`}>
                <button type="button" className="link-button" onClick={() => onShowLine(r.line)}>
                  Line {r.line}
                </button>
                : {r.text}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
