import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { readPostHead, readPreviewRow } from '../data/posts/reads';
import type { ConsoleSession } from './session-store';
import type { ArticleView } from '../reader-pages/article-document';
import { UUID_PATTERN } from '../foundation/uuid';
import type { Revision } from '../model/revision';

/**
 * Which saved version of an article a preview frame may show to this session: the owner
 * sees any of theirs; an administrator also sees what others submitted for moderation.
 */
export type PreviewVersion = 'working' | 'published' | 'submitted';

export function parseVersion(value: string | null): PreviewVersion | null {
  if (value === null || value === 'working') return 'working';
  return value === 'published' || value === 'submitted' ? value : null;
}

export async function findPreview(
  db: StatementRunner,
  session: ConsoleSession,
  id: string,
  version: PreviewVersion,
): Promise<ArticleView | null> {
  if (!UUID_PATTERN.test(id)) return null;
  const post = await readPreviewRow(db, id, version);
  if (!post) return null;
  const own = post.account_id === session.auth.account.id;
  if (version === 'submitted' && !own && !(session.auth.account.isAdmin && post.status === 'pending_moderation'))
    return null;
  if (version !== 'submitted' && !own) return null;
  return post.version;
}

/** The saved cover of the author's article (the live preview shows it above the text being edited). */
export async function savedCover(
  db: StatementRunner,
  session: ConsoleSession,
  id: string,
): Promise<{ url: string; width: number; height: number } | null> {
  if (!UUID_PATTERN.test(id)) return null;
  const saved = await readPostHead(db, session.auth.account.id, id);
  return saved?.cover_url && saved.cover_width && saved.cover_height
    ? { url: saved.cover_url, width: saved.cover_width, height: saved.cover_height }
    : null;
}

/** A saved revision as readers would have got it (revisions keep no cover: none is shown). */
export function revisionView(r: Revision): ArticleView {
  return { title: r.title, subtitle: r.subtitle, html: r.html, tags: r.tags, cover: null };
}
