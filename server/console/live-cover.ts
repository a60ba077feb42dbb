import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { ownMediaRows } from '../data/media-rows';
import { localMediaPath } from '../content/urls';
import { UUID_PATTERN } from '../foundation/uuid';
import type { ConsoleSession } from './session-store';
import { savedCover } from './preview';

type Cover = { url: string; width: number; height: number } | null;

/**
 * The cover the live preview shows above the unsaved text: the one the editor has chosen when
 * its form says (`cover_asset_id`: one of the account's images, '' for none, as Save would send
 * it), else the saved one. An id that is not one of the account's images shows no cover, as a
 * save of it would be refused; nothing of another account's is ever shown.
 */
export async function liveCover(
  db: StatementRunner,
  session: ConsoleSession,
  postId: string,
  chosen: string | null,
): Promise<Cover> {
  if (chosen === null) return savedCover(db, session, postId);
  const id = chosen.trim().toLowerCase();
  if (!UUID_PATTERN.test(id)) return null;
  const [media] = await ownMediaRows(db, session.auth.account.id, [id]);
  return media && media.kind === 'image'
    ? { url: localMediaPath(media.id), width: media.width, height: media.height }
    : null;
}
