import { notModified } from '../../foundation/errors';
import { ifNoneMatchMatches } from '../../foundation/entity-tags';
import { postEtag, type EtagFields } from '../../services/posts/post-etag';
import type { WritePreconditions } from '../../services/posts/post-writes';
import type { ApiContext } from '../trpc';

/**
 * Conditional requests on articles (beyond the contract, opt-in): the headers are read and written here,
 * in the procedures; the versions are compared by the domain (services/posts/post-etag.ts), under the
 * row lock for writes. Without these headers every route behaves exactly as the contract describes.
 */
export function writePreconditions(ctx: ApiContext): WritePreconditions {
  return { ifMatch: ctx.headers.get('if-match') };
}

/** Every response that shows (or changes) an article carries the ETag of its current version. */
export function sendEtag(ctx: ApiContext, post: EtagFields): string {
  const etag = postEtag(post);
  ctx.res.setHeader('ETag', etag);
  return etag;
}

/** GET with a matching If-None-Match: 304 with the ETag and no body. */
export function answerNotModifiedIfCurrent(ctx: ApiContext, etag: string): void {
  if (ifNoneMatchMatches(ctx.headers.get('if-none-match'), etag)) throw notModified();
}
