import { consoleEm, currentSession } from '@/server/console/context';
import { describeProblem } from '@/server/console/problems';
import { messageDocument } from '@/server/console/preview-messages';
import { previewHeaders } from '@/server/console/article-document';
import { findPreview } from '@/server/console/preview';
import { diffDocument, publishDiff } from '@/server/console/publish-diff';

export const dynamic = 'force-dynamic';

/**
 * The saved working version with what publishing it would add and remove marked, for the
 * console's sandboxed "what changes on publish" frame (same headers as every preview frame).
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const session = await currentSession();
  if (!session)
    return new Response(messageDocument('Your console session has ended. Sign in again.'), {
      status: 401,
      headers: previewHeaders(),
    });
  try {
    const em = await consoleEm();
    const working = await findPreview(em, session, id, 'working');
    if (!working)
      return new Response(messageDocument('That article does not exist.'), { status: 404, headers: previewHeaders() });
    const published = await findPreview(em, session, id, 'published');
    if (!published)
      return new Response(
        messageDocument('Nothing is published yet: publishing shows readers the whole working version.'),
        {
          status: 404,
          headers: previewHeaders(),
        },
      );
    return new Response(diffDocument(publishDiff(published, working), working), {
      status: 200,
      headers: previewHeaders(),
    });
  } catch (err) {
    return new Response(messageDocument(describeProblem(err)), { status: 503, headers: previewHeaders() });
  }
}
