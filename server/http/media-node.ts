/**
 * /api/media/{uuid} served on the Node server itself, ahead of Next, by `serveMedia`.
 *
 * Why: Next's sendResponse drops `Content-Length` from every route-handler response
 * (FORBIDDEN_HEADERS in next/dist/server/send-response.js), so a file would go out chunked
 * with no length, and HEAD would claim nothing about the size; browsers then cannot show
 * download progress or plan range requests for video. Here the headers go straight onto the
 * Node response.
 * The request listener calls `takeMediaRequest` before handing anything to Next.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localMediaPath } from '../content/urls';
import { isUuid } from '../foundation/uuid';
import type { AppParts } from '../runtime/parts';
import { serveMedia } from './media-serve';

const MEDIA_PATH = /^\/api\/media\/([^/?#]*)$/;

/** True when the request is for a stored file and this module answers it. */
export function takeMediaRequest(
  parts: Pick<AppParts, 'db' | 'storage'>,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return false;
  const [pathname, query] = (req.url ?? '/').split('?', 2) as [string, string | undefined];
  const match = MEDIA_PATH.exec(pathname);
  if (!match) return false;
  void answer(parts, req, res, match[1]!, query !== undefined);
  return true;
}

/**
 * A stored file has one address, `/api/media/<uuid in lower case>`: that is what a purge names.
 * Another spelling of it (upper case, percent-escapes, a query string, which changes nothing of
 * the file) is redirected there and kept by shared caches for seconds only, never answered with the file's year-long `immutable` copy, which a
 * purge of the canonical path would not reach after the owner's account is deleted.
 */
const REDIRECT_CACHE_CONTROL = 'public, max-age=0, s-maxage=10';

async function answer(
  parts: Pick<AppParts, 'db' | 'storage'>,
  req: IncomingMessage,
  res: ServerResponse,
  rawId: string,
  queried: boolean,
): Promise<void> {
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    id = ''; // malformed escapes: an unknown id (404)
  }
  if (isUuid(id) && (rawId !== id.toLowerCase() || queried)) {
    res.statusCode = 308;
    res.setHeader('location', localMediaPath(id.toLowerCase()));
    res.setHeader('cache-control', REDIRECT_CACHE_CONTROL);
    res.end();
    return;
  }
  await serveMedia(parts, req, res, id);
}
