/**
 * /api/media/{uuid} served on the Node server itself, ahead of Next, by `serveMedia`.
 *
 * Why: Next's sendResponse drops `Content-Length` from every route-handler response
 * (FORBIDDEN_HEADERS in next/dist/server/send-response.js), so a file would go out chunked
 * with no length, and HEAD would claim nothing about the size; browsers then cannot show
 * download progress or plan range requests for video. Here the Response is written as is.
 * The request listener calls `takeMediaRequest` before handing anything to Next.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { serveMedia } from './media-serve';

const MEDIA_PATH = /^\/api\/media\/([^/?#]*)$/;

/** True when the request is for a stored file and this module answers it. */
export function takeMediaRequest(req: IncomingMessage, res: ServerResponse): boolean {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return false;
  const pathname = (req.url ?? '/').split('?')[0]!;
  const match = MEDIA_PATH.exec(pathname);
  if (!match) return false;
  void answer(req, res, method, match[1]!);
  return true;
}

async function answer(req: IncomingMessage, res: ServerResponse, method: string, rawId: string): Promise<void> {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(', '));
    }
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      id = ''; // malformed escapes: an unknown id (404)
    }
    const response = await serveMedia(new Request(`http://local${req.url}`, { method, headers }), id);
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (!response.body || method === 'HEAD') {
      await response.body?.cancel();
      res.end();
      return;
    }
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res);
  } catch {
    // A client that went away mid-file ends up here; the storage stream is already closed by pipeline.
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: 'Internal server error' }));
    } else {
      res.destroy();
    }
  }
}
