import type { StatementRunner } from '../../../db/statements';
import { ownMediaRows } from '../../data/media-rows';
import type { RehostMemory, StoredImage } from '../../data/posts/writes';
import {
  absoluteHttpUrl,
  localMediaPath,
  localMediaUuid,
  pointsAtThisService,
  storedMediaReferences,
} from '../../content';
import { invalid } from '../../foundation/errors';
import type { PostWrite } from './post-rules';
import type { RehostOutcome } from '../media/rehost-port';

/**
 * The stored files an article write shows: its cover (planned before anything is downloaded,
 * settled after) and the files its body shows, each held to the one ownership rule. Used by
 * post-writes.ts for creates and edits alike.
 */

export interface CoverChoice {
  assetId: string | null;
  url: string | null;
  width: number | null;
  height: number | null;
}

const NO_COVER: CoverChoice = { assetId: null, url: null, width: null, height: null };
const coverOf = (image: StoredImage): CoverChoice => ({
  assetId: image.id,
  url: localMediaPath(image.id),
  width: image.width,
  height: image.height,
});

/** What a write does to the cover: nothing, set it now, or set it once `url` is downloaded. */
/** `keep` leaves the cover as it is; `refused` names a cover_url that is not used (it points at this service). */
export type CoverPlan =
  | { kind: 'keep'; refused?: string }
  | { kind: 'set'; cover: CoverChoice }
  | { kind: 'fetch'; url: string; written: string };

/**
 * The one ownership rule for stored files a write shows (cover, body images, videos, GIF
 * islands, link-card media): they must be files of the writing account. Another account's file
 * and one that does not exist are alike, so a uuid seen in someone's article lends nothing.
 */
async function ownMedia(db: StatementRunner, accountId: string, ids: string[]) {
  return new Map((await ownMediaRows(db, accountId, ids)).map((media) => [media.id, media]));
}

async function coverFromAsset(
  db: StatementRunner,
  accountId: string,
  assetId: string,
  field: string,
): Promise<CoverChoice> {
  const media = (await ownMedia(db, accountId, [assetId])).get(assetId);
  if (!media || media.kind !== 'image') throw invalid(`${field}: no image ${assetId} among your media`);
  return { assetId: media.id, url: localMediaPath(media.id), width: media.width, height: media.height };
}

/**
 * The cover of this write, checked before any download: a missing `cover_asset_id` or local
 * `/api/media/<uuid>` is a 400 here; a local path is never downloaded, charged or reported.
 * An external `cover_url` this article already stored is taken from the memory.
 */
export async function planCover(
  db: StatementRunner,
  accountId: string,
  input: PostWrite,
  memory: RehostMemory,
): Promise<CoverPlan> {
  if (input.cover_asset_id !== undefined) {
    if (input.cover_asset_id === null) return { kind: 'set', cover: NO_COVER };
    return {
      kind: 'set',
      cover: await coverFromAsset(db, accountId, input.cover_asset_id.toLowerCase(), 'cover_asset_id'),
    };
  }
  if (input.cover_url === undefined) return { kind: 'keep' };
  if (input.cover_url === null) return { kind: 'set', cover: NO_COVER };
  const localId = localMediaUuid(input.cover_url);
  if (localId) return { kind: 'set', cover: await coverFromAsset(db, accountId, localId, 'cover_url') };
  const url = absoluteHttpUrl(input.cover_url) ?? input.cover_url;
  // Never downloaded: this service's own pages and beacons are not images to store.
  if (pointsAtThisService(url)) return { kind: 'keep', refused: input.cover_url };
  const known = memory.get(url);
  if (known) return { kind: 'set', cover: coverOf(known) };
  return { kind: 'fetch', url, written: input.cover_url };
}

/** A body showing a stored file the account does not own is refused like such a cover: 400, naming them. */
export async function assertBodyMediaOwned(db: StatementRunner, accountId: string, html: string): Promise<void> {
  const referenced = storedMediaReferences(html);
  const owned = await ownMedia(db, accountId, referenced);
  const foreign = referenced.filter((id) => !owned.has(id));
  if (foreign.length > 0) {
    throw invalid(`markdown: not among your media: ${foreign.map(localMediaPath).join(', ')}`);
  }
}

/** The contract's rehost rule 3: a cover URL that cannot be stored simply creates no cover. */
export function coverAfterRehost(plan: CoverPlan, outcome: RehostOutcome): CoverChoice | undefined {
  if (plan.kind === 'set') return plan.cover;
  if (plan.kind === 'fetch') {
    const image = outcome.stored[plan.url];
    return image ? coverOf(image) : undefined;
  }
  return undefined;
}
