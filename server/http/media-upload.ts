/**
 * POST /api/v1/author/media (contract: POST /media) as a plain handler: trpc-to-openapi parses
 * JSON bodies only, and this one is multipart. Same steps and helpers as the tRPC procedures, in the same order:
 * Bearer token → media minute window (RateLimit-* headers, 429) → body → service; failures are
 * answered by server/http/errors.ts like every other route's. The body is read straight from the
 * Node request and the answer written on the Node response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit } from '../admission/admit';
import type { LimitWindow } from '../foundation/errors';
import { MAX_IMAGE_BYTES } from '../media/image';
import { storeUpload } from '../services/media/media-storage';
import { logLine } from '../foundation/log';
import type { AppParts } from '../runtime/parts';
import { mediaDepsOf } from '../runtime/request-contexts';
import { readMultipartFile, UploadStalledError } from './multipart-file';
import { nodeHeaderView } from './node-headers';
import { JSON_UTF8, rateLimitHeaders, sendFailure } from './errors';

export async function handleMediaUpload(parts: AppParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let window: LimitWindow | undefined;
  try {
    const admitted = await admit(parts.db, nodeHeaderView(req), 'media');
    window = admitted.window;
    const bytes = await readMultipartFile(req, { field: 'file', maxBytes: MAX_IMAGE_BYTES });
    const media = await storeUpload(mediaDepsOf(parts), admitted.auth.account, bytes);
    for (const [name, value] of Object.entries(rateLimitHeaders(window, false))) res.setHeader(name, value);
    res.setHeader('content-type', JSON_UTF8);
    res.setHeader('cache-control', 'no-store');
    res.statusCode = 200;
    res.end(JSON.stringify(media));
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // The rest of a stalled or too slow body will not be read: the connection cannot carry another request.
    if (err instanceof UploadStalledError) res.setHeader('connection', 'close');
    const failure = sendFailure(res, err, window ? rateLimitHeaders(window, false) : {});
    if (failure.status >= 500)
      logLine({
        level: 'error',
        msg: 'media upload failed',
        error: String(err),
        stack: (err as Error | undefined)?.stack,
      });
  }
}
