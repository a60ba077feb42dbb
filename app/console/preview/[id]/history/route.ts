import { ConversionBusyError } from '@/server/content';
import { answerPreviewFrame, frameMessage, POOL_BUSY, spendPoolTurn } from '@/server/console/preview-frame';
import { diffDocument, publishDiffInPool } from '@/server/console/publish-diff';
import { revisionView } from '@/server/console/preview';
import { isDomainError } from '@/server/foundation/errors';
import type { Revision } from '@/server/model/revision';
import { readRevision } from '@/server/services/posts/revisions';
import { UUID_PATTERN } from '@/server/foundation/uuid';

export const dynamic = 'force-dynamic';

/**
 * The change between two saved revisions of an article (`?from=` the older, `?to=` the newer),
 * in the same view and stylesheet as "what changes on publish": `to` as readers would get it,
 * with what it added and removed against `from` marked. Bounded and charged the same way: a
 * turn in the content worker pool and one unit of the account's write window per frame.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const query = new URL(request.url).searchParams;
  return answerPreviewFrame(async (session, parts) => {
    const { db, content } = parts;
    const account = session.auth.account.id;
    if (!UUID_PATTERN.test(id)) return frameMessage(404, 'That article does not exist.');
    const refused = await spendPoolTurn(session, parts);
    if (refused) return refused;
    let from: Revision, to: Revision;
    try {
      from = await readRevision(db, account, id, query.get('from') ?? '');
      to = await readRevision(db, account, id, query.get('to') ?? '');
    } catch (err) {
      if (isDomainError(err, 'not_found')) return frameMessage(404, 'That saved version is no longer kept.');
      throw err;
    }
    try {
      const diff = await publishDiffInPool(content, revisionView(from), revisionView(to), account);
      return { status: 200, html: diffDocument(diff, revisionView(to), 'These two saves show readers the same.') };
    } catch (err) {
      if (err instanceof ConversionBusyError) return frameMessage(503, POOL_BUSY);
      throw err;
    }
  });
}
