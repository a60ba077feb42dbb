import type { StatementRunner } from '../../db/statements';
import { readPreviewRow } from '../data/posts/reads';
import { env } from '../foundation/env';
import { findPublishedArticle } from '../services/posts/public-articles';
import { articlePageOf } from '../reader-pages/article-page';
import { canonicalPath } from '../services/posts/post-view';
import { socialCardOfPage, type SocialCardFields } from './social-card';

/**
 * The "When shared" card of the author's article, for the console's article page. A published
 * article (also one whose newer version waits for moderation): read the way the public page
 * reads it (findPublishedArticle, the same statement), with the same PUBLIC_ORIGIN, so the card
 * is that page's. Nothing public yet: the saved working version as publishing would freeze it
 * (the same snapshot the working preview shows), labelled "when published". Null when the
 * article is not the account's (or no longer exists).
 */
export async function socialCardFor(
  db: StatementRunner,
  account: { id: string; handle: string },
  post: { id: string; public_id: string },
  publishedSlug: string | null,
): Promise<SocialCardFields | null> {
  const origin = env.PUBLIC_ORIGIN ?? null;
  if (publishedSlug !== null) {
    const found = await findPublishedArticle(db, canonicalPath(publishedSlug, post.public_id).slice(1));
    if (found.kind === 'article') return socialCardOfPage(articlePageOf(found, origin), 'published');
  }
  const row = await readPreviewRow(db, post.id, 'working');
  if (!row || row.account_id !== account.id || !row.version) return null;
  return socialCardOfPage(
    {
      version: row.version,
      path: canonicalPath(row.version.slug, post.public_id),
      publicId: post.public_id,
      publishedAt: null,
      handle: account.handle,
      origin,
    },
    'when_published',
  );
}
