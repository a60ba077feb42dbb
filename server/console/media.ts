import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { recentMediaRows, type MediaRecord } from '../data/media';
import { localMediaPath } from '../content/urls';

/** The author's latest stored files, without the posters that belong to GIF videos. */
export function recentMedia(db: StatementRunner, accountId: string, limit = 60): Promise<MediaRecord[]> {
  return recentMediaRows(db, accountId, limit);
}

/** What to paste into an article for a stored file (an image, or the GIF island for `kind: gif`). */
export function markdownSnippet(media: Pick<MediaRecord, 'id' | 'kind'>): string {
  const url = localMediaPath(media.id);
  if (media.kind === 'gif') {
    return `<div class="dp-gif" data-gif="${media.id}"><video src="${url}" autoplay loop muted playsinline></video></div>`;
  }
  return `![](${url})`;
}
