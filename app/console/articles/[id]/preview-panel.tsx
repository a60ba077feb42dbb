'use client';

import { PREVIEW_CURSOR_ID } from '@/server/console/preview-cursor';
import { PreviewFrame } from '../../components/preview-frame';
import { ReaderWidths } from '../../components/reader-widths';
import type { PreviewState } from './use-live-preview';

const LABELS = {
  saved: 'Preview of the saved working version',
  pending: 'Updating preview…',
  live: 'Live preview of your unsaved text',
  'too-long': 'Preview of the saved working version (the text is too long to preview while typing: save to see it)',
} as const;

/**
 * The rendered article beside the Markdown, in a sandboxed frame with the readers' stylesheet:
 * the saved version, or the unsaved text posted by the hidden form below (the route answers
 * with a CSP-sandboxed page that opens at the cursor's place, the fragment naming its anchor).
 */
export function PreviewPanel({
  postId,
  csrf,
  state,
  savedSrc,
  savedKey,
  formRef,
}: {
  postId: string;
  csrf: string;
  state: PreviewState;
  /** The saved version's address (opening at the editing place) and the key that reloads it. */
  savedSrc: string;
  savedKey: string;
  formRef: React.RefObject<HTMLFormElement | null>;
}) {
  const frameName = `live-preview-${postId}`;
  return (
    <>
      <section className="editor__preview" aria-label="Preview">
        <h2 className="preview-label" aria-live="polite">
          {LABELS[state]}
        </h2>
        <ReaderWidths>
          <PreviewFrame name={frameName} title="Article preview" src={savedSrc} key={savedKey} />
        </ReaderWidths>
      </section>
      <form ref={formRef} method="post" action={`/console/preview/live#${PREVIEW_CURSOR_ID}`} target={frameName} hidden>
        <input type="hidden" name="id" value={postId} />
        <input type="hidden" name="csrf" value={csrf} />
        {/* Filled from the editor's fields just before each post (live-preview-post.ts). */}
        <input type="hidden" name="title" />
        <input type="hidden" name="subtitle" />
        <input type="hidden" name="tags" />
        <input type="hidden" name="markdown" />
        <input type="hidden" name="cover_asset_id" />
        <input type="hidden" name="cursor" />
      </form>
    </>
  );
}
