import { consoleParts, currentSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { storeConsoleUpload } from '@/server/console/media-library';
import { mediaDepsOf } from '@/server/runtime/request-contexts';
import { describeProblem } from '@/server/console/problems';
import { csrfMatches } from '@/server/console/session-store';
import { isSameOrigin } from '@/server/console/same-origin';
import { readMultipartFile } from '@/server/http/multipart-file';
import { MAX_IMAGE_BYTES } from '@/server/media/image';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The media page's upload, as a route handler rather than a Server Action so the browser can
 * report upload progress (XMLHttpRequest). Next checks no Origin here, so this does: the
 * session cookie, the Origin, and the session's CSRF token in a header; then the same media
 * window as POST /media, and its service, except that an animated GIF is stored as a looping
 * video (as from-url stores one) instead of refused: a file on the maintainer's computer has no
 * address to store it from. A file already in the library is not stored again: the answer names
 * the entry it has (`reused`, with the sentence to show). Failures come back as a sentence for
 * the page to show.
 */
export async function POST(request: Request) {
  const session = await currentSession();
  if (!session) return answer({ ok: false, error: 'Your console session has ended. Sign in again.' }, 401);
  if (!isSameOrigin(request.headers)) return answer({ ok: false, error: 'Cross-site request refused.' }, 403);
  if (!csrfMatches(session, request.headers.get('x-csrf-token'))) {
    return answer({ ok: false, error: 'This page is out of date. Reload it and try again.' }, 403);
  }
  try {
    const parts = consoleParts();
    await spend(parts.db, session.auth, 'media');
    const bytes = await readMultipartFile(request, { field: 'file', maxBytes: MAX_IMAGE_BYTES });
    const stored = await storeConsoleUpload(
      mediaDepsOf(parts),
      session.auth.account,
      bytes,
      fileNameFrom(request.headers.get('x-file-name')),
    );
    return answer({ ok: true, ...stored }, 200);
  } catch (err) {
    return answer({ ok: false, error: describeProblem(err) }, 400);
  }
}

/** The file's name as the browser sent it (URI-encoded): its last path part, one line, at most 200 characters. */
function fileNameFrom(header: string | null): string | null {
  if (!header) return null;
  let name: string;
  try {
    name = decodeURIComponent(header);
  } catch {
    return null;
  }
  name = (name.split(/[/\\]/).pop() ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return name || null;
}

function answer(body: unknown, status: number) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}
