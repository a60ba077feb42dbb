import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MediaEntity, type Media } from '../../db/entities';
import { sql } from '../../db/sql';
import { mediaDeps } from '../runtime';
import type { MediaDeps } from '../services/media';
import { localMediaPath } from '../content/urls';

/** The console's media page: the same service dependencies POST /media uses. */
export function consoleMediaDeps(em: EntityManager): MediaDeps {
  return mediaDeps(em);
}

/** The author's latest stored files, without the posters that belong to GIF videos. */
export async function recentMedia(em: EntityManager, accountId: string, limit = 60): Promise<Media[]> {
  const rows = await sql<Record<string, unknown>[]>(
    em,
    `SELECT * FROM media m
      WHERE m.account_id = ?
        AND NOT EXISTS (SELECT 1 FROM media v WHERE v.poster_media_id = m.id)
      ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
    [accountId, limit],
  );
  return rows.map((r) => em.map(MediaEntity, r));
}

/** What to paste into an article for a stored file (an image, or the GIF island for `kind: gif`). */
export function markdownSnippet(media: Pick<Media, 'id' | 'kind'>): string {
  const url = localMediaPath(media.id);
  if (media.kind === 'gif') {
    return `<div class="dp-gif" data-gif="${media.id}"><video src="${url}" autoplay loop muted playsinline></video></div>`;
  }
  return `![](${url})`;
}
