/**
 * POST /api/v1/author/media (contract: POST /media) as a plain handler: trpc-to-openapi parses
 * JSON bodies only, and this one is multipart. Same steps and helpers as the tRPC procedures, in the same order:
 * Bearer token → media minute window (RateLimit-* headers, 429) → body → service; failures are
 * answered by server/http/errors.ts like every other route's.
 */
import { admit } from '../api/authenticate';
import type { LimitWindow } from '../errors';
import { MAX_IMAGE_BYTES } from '../media/image';
import { storeUpload } from '../services/media';
import { logLine } from '../log';
import { entityManager, mediaDeps } from '../runtime';
import { readMultipartFile, UploadStalledError } from './multipart-file';
import { failureResponse, rateLimitHeaders } from './errors';

export async function handleMediaUpload(req: Request): Promise<Response> {
  const headers = new Headers();
  let window: LimitWindow | undefined;
  try {
    const admitted = await admit(req.headers, 'media');
    window = admitted.window;
    const bytes = await readMultipartFile(req, { field: 'file', maxBytes: MAX_IMAGE_BYTES });
    const media = await storeUpload(mediaDeps(await entityManager()), admitted.auth.account, bytes);
    for (const [name, value] of Object.entries(rateLimitHeaders(window, false))) headers.set(name, value);
    headers.set('content-type', 'application/json; charset=utf-8');
    headers.set('cache-control', 'no-store');
    return new Response(JSON.stringify(media), { status: 200, headers });
  } catch (err) {
    if (err instanceof UploadStalledError) headers.set('connection', 'close');
    if (window) for (const [name, value] of Object.entries(rateLimitHeaders(window, false))) headers.set(name, value);
    const { response, failure } = failureResponse(err, headers);
    if (failure.status >= 500)
      logLine({
        level: 'error',
        msg: 'media upload failed',
        error: String(err),
        stack: (err as Error | undefined)?.stack,
      });
    return response;
  }
}
