'use client';

import { useEffect, useRef, useState, useTransition } from 'react';
import { saveArticle, type SaveOutcome } from '../../actions/articles';

export interface EditorFields {
  title: string;
  subtitle: string;
  slug: string;
  tags: string;
  markdown: string;
}

const PREVIEW_DELAY_MS = 600;

/**
 * Markdown on the left, the rendered article on the right. The preview is converted on the
 * server (the same pipeline as a write) and shown in a sandboxed frame: typing posts the draft
 * to /console/preview/live into that frame after a pause; nothing is saved until "Save", which
 * goes through the same rules as PATCH /posts/{id}. Save sends the version it started from
 * (`version`, the article's ETag): a change made elsewhere meanwhile is never overwritten.
 */
export function ArticleEditor({
  postId,
  csrf,
  version: loadedVersion,
  initial,
}: {
  postId: string;
  csrf: string;
  version: string;
  initial: EditorFields;
}) {
  const [fields, setFields] = useState(initial);
  const [version, setVersion] = useState(loadedVersion);
  const [dirty, setDirty] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const [saving, startSaving] = useTransition();
  const [savedVersion, setSavedVersion] = useState('');
  const [previewState, setPreviewState] = useState<'saved' | 'pending' | 'live'>('saved');
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
      if (result.ok) {
        setDirty(false);
        setVersion(result.version);
        setSavedVersion(result.updatedAt);
        setPreviewState('saved');
      }
    });
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
        <label htmlFor="markdown">Markdown</label>
        <textarea
          id="markdown"
          name="markdown"
          value={fields.markdown}
          onChange={update('markdown')}
          rows={24}
          spellCheck={false}
          required
        />
        <div className="editor__actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          <span className="muted" aria-live="polite">
            {dirty ? 'Unsaved changes' : outcome?.ok ? 'All changes saved' : ''}
          </span>
        </div>
        <SaveReport outcome={outcome} />
      </form>

      <section className="editor__preview" aria-label="Preview">
        <h2 className="preview-label" aria-live="polite">
          {previewLabel}
        </h2>
        <iframe
          name={frameName}
          title="Article preview"
          sandbox=""
          className="preview-frame"
          src={`/console/preview/${postId}${savedVersion ? `?v=${encodeURIComponent(savedVersion)}` : ''}`}
          key={savedVersion}
        />
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
      {outcome.rehostFailed.length > 0 && (
        <div className="warning-box">
          <p>These images could not be copied into storage and still point elsewhere (rehost_failed):</p>
          <ul>
            {outcome.rehostFailed.map((url) => (
              <li key={url}>
                <code>{url}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {outcome.warnings.length > 0 && (
        <div className="warning-box">
          <p>Warnings:</p>
          <ul>
            {outcome.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
