import type { EntityManager } from '@mikro-orm/postgresql';
import { PostEntity, type Post } from '../../db/entities';
import { notFound } from '../errors';
import { lockOwn } from './posts';
import { announcePublicChange, publicPathOf } from './public-changes';
import { approve, reject } from './publication';

/**
 * Moderation of the articles moderated accounts submit (docs/api.md "States and moderation"):
 * the queue, approve and reject, for the console's admins and the CLI. Any account's article;
 * the transitions themselves are publication.ts's.
 */

/** Waiting articles, oldest submission first. */
export async function listPending(em: EntityManager) {
  return em.find(
    PostEntity,
    { status: 'pending_moderation', deletedAt: null },
    { orderBy: { updatedAt: 'asc', id: 'asc' }, populate: ['submittedVersion'] as never },
  );
}

export async function approvePost(em: EntityManager, id: string): Promise<Post> {
  return decide(em, id, (post) => approve(post, new Date(), `Article ${id}`));
}

export async function rejectPost(em: EntityManager, id: string, reason: string | null): Promise<Post> {
  return decide(em, id, (post) => reject(post, reason, `Article ${id}`));
}

async function decide(em: EntityManager, id: string, transition: (post: Post) => void): Promise<Post> {
  const { post, before } = await em.transactional(async (tx) => {
    const post = await lockOwn(tx, id, null, ['submittedVersion', 'publishedVersion'] as never);
    if (!post) throw notFound(`No article ${id}`);
    const before = publicPathOf(post.publishedVersion?.slug, post.publicId);
    transition(post);
    await tx.flush();
    return { post, before };
  });
  // An approval replaces the public snapshot (and may move its slug); a rejection leaves it as
  // it was, but a decision is announced alike, so a cache never holds a page older than it.
  announcePublicChange([before, publicPathOf(post.publishedVersion?.slug, post.publicId)]);
  return post;
}
