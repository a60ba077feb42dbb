import { consoleEm, currentSession } from '@/server/console/context';
import { describeProblem } from '@/server/console/problems';
import { messageDocument } from '@/server/console/preview-messages';
import { previewDocument, previewHeaders } from '@/server/console/article-document';
import { findPreview, parseVersion } from '@/server/console/preview';

export const dynamic = 'force-dynamic';

/**
 * A saved version of an article as a stand-alone page for the console's sandboxed frames.
 * The header CSP (`sandbox`, no scripts, own media only) holds even when the page is opened
 * outside the frame, so a sanitizer bug cannot run code in the console's origin.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const session = await currentSession();
  if (!session)
    return new Response(messageDocument('Your console session has ended. Sign in again.'), {
      status: 401,
      headers: previewHeaders(),
    });
  const version = parseVersion(new URL(request.url).searchParams.get('version'));
  if (!version) return new Response(messageDocument('Unknown version.'), { status: 400, headers: previewHeaders() });
  try {
    const view = await findPreview(await consoleEm(), session, id, version);
    if (!view) {
      const what =
        version === 'published'
          ? 'No published version.'
          : version === 'submitted'
            ? 'Nothing is waiting for moderation.'
            : 'That article does not exist.';
      return new Response(messageDocument(what), { status: 404, headers: previewHeaders() });
    }
    return new Response(previewDocument(view), { status: 200, headers: previewHeaders() });
  } catch (err) {
    return new Response(messageDocument(describeProblem(err)), { status: 503, headers: previewHeaders() });
  }
}
