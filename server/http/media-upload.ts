/**
 * POST /api/v1/author/media (contract: POST /media) as a plain handler: trpc-to-openapi parses
 * JSON bodies only, and this one is multipart. Same steps and helpers as the tRPC procedures, in the same order:
 * Bearer token → media minute window (RateLimit-* headers, 429) → body → service; errors go
 * through toApiError and come out as `{error, code?}` like every other route.
 */
import { toApiError } from '../api/errors';
import { quotaHeaders } from '../api/media/limit-headers';
import { admit } from '../api/authenticate';
import { getOrm } from '../../db/orm';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../errors';
import { MAX_IMAGE_BYTES } from '../media/image';
import { mediaStorage, outboundAllowList } from '../media/storage-instance';
import { DailyQuotaExceededError, storeUpload } from '../services/media';
import { logLine } from '../log';
import { readMultipartFile, UploadStalledError } from './multipart-file';
import { errorResponse } from './error-body';

export async function handleMediaUpload(req: Request): Promise<Response> {
  const headers = new Headers();
  try {
    const auth = await admit(req.headers, 'media', (name, value) => headers.set(name, value));
    const em = (await getOrm()).em.fork() as unknown as EntityManager;

    const bytes = await readMultipartFile(req, { field: 'file', maxBytes: MAX_IMAGE_BYTES });
    const media = await storeUpload(
      { em, storage: mediaStorage(), allowList: outboundAllowList() },
      auth.account,
      bytes,
    );
    headers.set('content-type', 'application/json; charset=utf-8');
    headers.set('cache-control', 'no-store');
    return new Response(JSON.stringify(media), { status: 200, headers });
  } catch (err) {
    if (err instanceof UploadStalledError) headers.set('connection', 'close');
    if (err instanceof DailyQuotaExceededError)
      for (const [name, value] of Object.entries(quotaHeaders(err))) headers.set(name, value);
    const api = err instanceof ApiError ? err : toApiError(err);
    if (api.status >= 500)
      logLine({
        level: 'error',
        msg: 'media upload failed',
        error: String(err),
        stack: (err as Error | undefined)?.stack,
      });
    return errorResponse(api, headers);
  }
}
