import type { Metadata } from 'next';
import { cache } from 'react';
import { headers } from 'next/headers';
import { notFound, permanentRedirect } from 'next/navigation';
import { consoleEm } from '@/server/console/context';
import { findPublicArticle } from '@/server/console/public-article';
import { ARTICLE_CSS, articleMarkup, excerpt } from '@/server/console/article-document';

/**
 * The public page of a published article at its canonical path (CONTRACT.md paths). Static
 * routes (/console, /api/…) win over this dynamic segment, so it never shadows them.
 * Readers get the published snapshot only, and no owner-only counters.
 */
export const dynamic = 'force-dynamic';

type Params = Promise<{ canonical: string }>;

const lookup = cache(async (segment: string) => findPublicArticle(await consoleEm(), decodeURIComponent(segment)));

async function resolve(params: Params) {
  const { canonical } = await params;
  const found = await lookup(canonical);
  if (found.kind === 'missing') notFound();
  if (found.kind === 'moved') permanentRedirect(found.path);
  return found;
}

async function siteOrigin(): Promise<string> {
  const h = await headers();
  const proto = h.get('x-forwarded-proto')?.split(',')[0]?.trim() || 'http';
  return `${proto}://${h.get('x-forwarded-host') ?? h.get('host') ?? 'localhost'}`;
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const article = await resolve(params);
  const { version } = article;
  const description = version.subtitle ?? excerpt(version.html);
  const origin = await siteOrigin();
  return {
    title: { absolute: version.title },
    description,
    alternates: { canonical: `${origin}${article.path}` },
    openGraph: {
      type: 'article',
      title: version.title,
      description,
      url: `${origin}${article.path}`,
      publishedTime: article.publishedAt?.toISOString(),
      tags: version.tags.map((t) => t.name),
      images: version.cover ? [{ url: `${origin}${version.cover.url}`, width: version.cover.width, height: version.cover.height }] : undefined,
    },
    twitter: { card: version.cover ? 'summary_large_image' : 'summary', title: version.title, description },
  };
}

export default async function PublicArticlePage({ params }: { params: Params }) {
  const article = await resolve(params);
  return (
    <div className="reader">
      <style dangerouslySetInnerHTML={{ __html: ARTICLE_CSS }} />
      <article className="dp-article" dangerouslySetInnerHTML={{ __html: articleMarkup(article.version) }} />
      <p className="reader__byline">
        @{article.handle}
        {article.publishedAt && (
          <>
            {' · '}
            <time dateTime={article.publishedAt.toISOString()}>
              {article.publishedAt.toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })}
            </time>
          </>
        )}
      </p>
    </div>
  );
}
