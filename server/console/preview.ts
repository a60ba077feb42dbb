import 'server-only';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PostEntity, type Post } from '../../db/entities';
import type { ConsoleSession } from './session-store';
import type { ArticleView } from './article-document';
import { UUID_PATTERN } from './queries';

/**
 * Which saved version of an article a preview frame may show to this session: the owner
 * sees any of theirs; an administrator also sees what others submitted for moderation.
 */
export type PreviewVersion = 'working' | 'published' | 'submitted';

export function parseVersion(value: string | null): PreviewVersion | null {
  if (value === null || value === 'working') return 'working';
  return value === 'published' || value === 'submitted' ? value : null;
}

function workingView(post: Post): ArticleView {
  return {
    title: post.title,
    subtitle: post.subtitle ?? null,
    html: post.html,
    tags: post.tags,
    cover:
      post.coverUrl && post.coverWidth && post.coverHeight
        ? { url: post.coverUrl, width: post.coverWidth, height: post.coverHeight }
        : null,
  };
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
  return version === 'working' ? workingView(post) : (post.publishedVersion ?? null);
}
