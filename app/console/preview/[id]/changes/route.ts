import { findPreview } from '@/server/console/preview';
import { answerPreviewFrame, frameMessage } from '@/server/console/preview-frame';
import { diffDocument, publishDiff } from '@/server/console/publish-diff';

export const dynamic = 'force-dynamic';

/**
 * The saved working version with what publishing it would add and remove marked, for the
 * console's sandboxed "what changes on publish" frame (same headers as every preview frame).
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerPreviewFrame(async (session, em) => {
    const db = await em();
    const working = await findPreview(db, session, id, 'working');
    if (!working) return frameMessage(404, 'That article does not exist.');
    const published = await findPreview(db, session, id, 'published');
    if (!published)
      return frameMessage(404, 'Nothing is published yet: publishing shows readers the whole working version.');
    return { status: 200, html: diffDocument(publishDiff(published, working), working) };
  });
}
