import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PostEntity } from '../../db/entities';
import type { ConsoleSession } from './session-store';
import type { ArticleView } from './article-document';
import { UUID_PATTERN } from '../uuid';
import { workingVersion } from '../services/post-view';
import type { Revision } from '../services/revisions';

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
  em: EntityManager,
  session: ConsoleSession,
  id: string,
  version: PreviewVersion,
): Promise<ArticleView | null> {
  if (!UUID_PATTERN.test(id)) return null;
  const post = await em.findOne(
    PostEntity,
    { id, deletedAt: null },
    { populate: ['html', 'publishedVersion', 'submittedVersion'] as never },
  );
  if (!post) return null;
  const own = post.accountId === session.auth.account.id;
  if (version === 'submitted') {
    if (!own && !(session.auth.account.isAdmin && post.status === 'pending_moderation')) return null;
    return post.submittedVersion ?? null;
  }
  if (!own) return null;
  return version === 'working' ? workingVersion(post) : (post.publishedVersion ?? null);
}

/**
 * The cover an unsaved preview shows: the saved article's stored cover (an unsaved cover URL is
 * not downloaded for a preview), or null.
 */
export async function savedCover(
  em: EntityManager,
  session: ConsoleSession,
  id: string,
): Promise<{ url: string; width: number; height: number } | null> {
  if (!UUID_PATTERN.test(id)) return null;
  const saved = await em.findOne(PostEntity, { id, accountId: session.auth.account.id, deletedAt: null });
  return saved?.coverUrl && saved.coverWidth && saved.coverHeight
    ? { url: saved.coverUrl, width: saved.coverWidth, height: saved.coverHeight }
    : null;
}

/** A saved revision as readers would have got it (revisions keep no cover: none is shown). */
export function revisionView(r: Revision): ArticleView {
  return { title: r.title, subtitle: r.subtitle, html: r.html, tags: r.tags, cover: null };
}
