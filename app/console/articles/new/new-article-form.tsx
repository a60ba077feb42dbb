'use client';

import { useActionState, useEffect, useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { LibraryItem } from '@/server/console/media-library';
import { createArticle, type NewArticleState } from '../../actions/articles';
import { handOverCreatedReport } from '../[id]/created-report';
import { MarkdownField } from '../[id]/markdown-field';
import { insertBlockAtCursor, type MarkdownHandle } from '../[id]/markdown-handle';
import { postToPreview, PREVIEW_PAUSE_MS } from '../[id]/live-preview-post';
import { useImageUpload } from '../[id]/use-image-upload';
import { useMediaLibrary } from '../[id]/use-media-library';
import { PreviewFrame } from '../../components/preview-frame';
import { ReaderWidths } from '../../components/reader-widths';

const FRAME = 'new-article-preview';

/**
 * A new article: its title and Markdown in the same editor as an article's (toolbar, shortcuts,
 * images uploaded into the library and inserted, islands), with a live preview beside it, before
 * anything is stored. "Create draft" stores it; the article's editor then opens with what the
 * write reported.
 */
export function NewArticleForm({
  csrf,
  library,
  quotaLeft,
}: {
  csrf: string;
  library: LibraryItem[];
  /** Bytes left of today's media quota when the page was rendered. */
  quotaLeft: number;
}) {
  const [state, action, pending] = useActionState<NewArticleState, FormData>(createArticle, null);
  const router = useRouter();
  const [title, setTitle] = useState('');
  const [markdown, setMarkdown] = useState('');
  const field = useRef<MarkdownHandle>(null);
  const previewForm = useRef<HTMLFormElement>(null);
  const [previewed, setPreviewed] = useState(false);
  const media = useMediaLibrary({ csrf, library, initialQuotaLeft: quotaLeft });
  const images = useImageUpload({
    library: media,
    insertAtCursor: (snippet) => insertBlockAtCursor(field.current, snippet),
  });

  // Created: the editor opens and shows what the write reported, as it does after a save.
  useEffect(() => {
    if (!state?.ok) return;
    handOverCreatedReport(state.id, state.report);
    router.push(`/console/articles/${state.id}`);
  }, [state, router]);

  // The preview follows the text once typing pauses (posted into its frame, nothing stored).
  useEffect(() => {
    if (!markdown.trim()) return;
    const timer = setTimeout(() => {
      const form = previewForm.current;
      if (!form) return;
      postToPreview(form, { title, markdown, cursor: String(field.current?.selectionStart ?? '') });
      setPreviewed(true);
    }, PREVIEW_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [title, markdown]);

  return (
    <div className="editor new-article">
      <form action={action} className="editor__form stack" aria-label="New article">
        <input type="hidden" name="csrf" value={csrf} />
        <label htmlFor="new-title">Title</label>
        <input id="new-title" name="title" required value={title} onChange={(e) => setTitle(e.target.value)} />
        <MarkdownField
          value={markdown}
          onChange={setMarkdown}
          loading={false}
          loadProblem=""
          field={field}
          images={images}
          onInsert={(snippet) => insertBlockAtCursor(field.current, snippet)}
        />
        {state && !state.ok && (
          <p className="error" role="alert">
            {state.error}
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={pending || Boolean(state?.ok)}>
            {pending || state?.ok ? 'Creating…' : 'Create draft'}
          </button>
        </div>
      </form>
      <section className="editor__preview" aria-label="Preview">
        <h2 className="preview-label" aria-live="polite">
          {previewed ? 'Live preview of your text' : 'The preview shows your text as you write it'}
        </h2>
        <ReaderWidths>
          <PreviewFrame name={FRAME} title="Article preview" src="about:blank" />
        </ReaderWidths>
      </section>
      <form ref={previewForm} method="post" action="/console/preview/live" target={FRAME} hidden>
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="title" />
        <input type="hidden" name="markdown" />
        <input type="hidden" name="cursor" />
      </form>
    </div>
  );
}
