import { ConversionBusyError } from '@/server/content';
import { findPreview } from '@/server/console/preview';
import { answerPreviewFrame, frameMessage, POOL_BUSY, spendPoolTurn } from '@/server/console/preview-frame';
import { diffDocument, publishDiffInPool } from '@/server/console/publish-diff';

export const dynamic = 'force-dynamic';

/**
 * The saved working version with what publishing it would add and remove marked, for the
 * console's sandboxed "what changes on publish" frame (same headers as every preview frame).
 * The diff takes a turn in the content worker pool, so it is charged like the live preview:
 * one unit of the account's write window (shared with the API) per frame.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return answerPreviewFrame(async (session, parts) => {
    const { db, content } = parts;
    const account = session.auth.account.id;
    // Nothing is loaded while this account's work in the pool is already backed up.
    const refused = await spendPoolTurn(session, parts);
    if (refused) return refused;
    const working = await findPreview(db, session, id, 'working');
    if (!working) return frameMessage(404, 'That article does not exist.');
    const published = await findPreview(db, session, id, 'published');
    if (!published)
      return frameMessage(404, 'Nothing is published yet: publishing shows readers the whole working version.');
    try {
      return {
        status: 200,
        html: diffDocument(await publishDiffInPool(content, published, working, account), working),
      };
    } catch (err) {
      if (err instanceof ConversionBusyError) return frameMessage(503, POOL_BUSY);
      throw err;
    }
  });
}
