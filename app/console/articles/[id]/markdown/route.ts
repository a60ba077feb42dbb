import { consoleParts, currentSession } from '@/server/console/context';
import { describeProblem } from '@/server/console/problems';
import { isDomainError } from '@/server/foundation/errors';
import { getMarkdownForEditor } from '@/server/services/posts/post-reads';
import { textBody } from '@/server/console/piecewise-body';
import { UUID_PATTERN } from '@/server/foundation/uuid';

export const dynamic = 'force-dynamic';

/**
 * The saved Markdown of a large article as plain text, for its editor page to load after it
 * shows (DEFERRED_MARKDOWN_CHARS in editor-fields.ts): written out in one piece, where putting
 * 2,000,000 characters into the page meant escaping them for the HTML and again for React's
 * payload while the server's one event loop waited; read alone and sent in pieces (piecewise-body.ts). Part of the page's read, like its preview
 * frames; the owner's only, never cached. `ETag`: the version the text belongs to.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const headers = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };
  const session = await currentSession();
  if (!session) return new Response('Your console session has ended. Sign in again.', { status: 401, headers });
  if (!UUID_PATTERN.test(id)) return new Response('That article does not exist.', { status: 404, headers });
  try {
    const { etag, markdown } = await getMarkdownForEditor(consoleParts().db, session.auth.account.id, id);
    return new Response(textBody(markdown), { status: 200, headers: { ...headers, etag } });
  } catch (err) {
    if (isDomainError(err, 'not_found')) return new Response('That article does not exist.', { status: 404, headers });
    return new Response(describeProblem(err), { status: 503, headers });
  }
}
