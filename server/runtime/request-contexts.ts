import type { MediaDeps } from '../services/media/media-storage';
import type { PublishingContext } from '../services/posts/post-publishing';
import type { WriteContext } from '../services/posts/post-writes';
import { createRehoster } from '../services/media/rehost';
import type { Authenticated } from '../model/account';
import { logLine } from '../foundation/log';
import type { RequestParts } from './parts';

/**
 * One request's dependencies, made of the process's parts: the REST procedures, the console and
 * the CLI build them alike, so a write does the same whoever asks for it.
 */

/** What storing media needs. */
export function mediaDepsOf(parts: RequestParts): MediaDeps {
  return { db: parts.db, storage: parts.storage, allowList: parts.allowList, work: parts.mediaWork };
}

/** What an article write needs: the author, their token, and a rehoster storing into their account. */
export function writeContextOf(parts: RequestParts, auth: Authenticated): WriteContext {
  const rehoster = createRehoster(mediaDepsOf(parts), auth.account, {
    log: (line) => logLine({ ...line, level: 'error' }),
  });
  return { db: parts.db, content: parts.content, accountId: auth.account.id, rehoster, tokenId: auth.tokenId };
}

/** What publishing, unpublishing, deleting and moderating need. */
export function publishingOf(parts: RequestParts): PublishingContext {
  return { db: parts.db, announce: parts.announce };
}
