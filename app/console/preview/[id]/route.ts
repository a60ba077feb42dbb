import { previewDocument } from '@/server/reader-pages/article-document';
import { findPreview, parseVersion } from '@/server/console/preview';
import { answerPreviewFrame, frameMessage } from '@/server/console/preview-frame';
import { anchorNear } from '@/server/console/preview-cursor';

export const dynamic = 'force-dynamic';

/**
 * A saved version of an article as a stand-alone page for the console's sandboxed frames.
 * The header CSP (`sandbox`, no scripts, own media only) holds even when the page is opened
 * outside the frame, so a sanitizer bug cannot run code in the console's origin.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerPreviewFrame(async (session, parts) => {
    const version = parseVersion(new URL(request.url).searchParams.get('version'));
    if (!version) return frameMessage(400, 'Unknown version.');
    const view = await findPreview(parts.db, session, id, version);
    // `near`: words of the editor's cursor line, so the saved version opens where the editing is.
    const near = new URL(request.url).searchParams.get('near') ?? '';
    if (view)
      return { status: 200, html: previewDocument(near ? { ...view, html: anchorNear(view.html, near) } : view) };
    return frameMessage(
      404,
      version === 'published'
        ? 'No published version.'
        : version === 'submitted'
          ? 'Nothing is waiting for moderation.'
          : 'That article does not exist.',
    );
  });
}
