import type { Metadata } from 'next';
import Link from 'next/link';
import { requireSession } from '@/server/console/context';
import { NewArticleForm } from './new-article-form';

export const metadata: Metadata = { title: 'New article' };

export default async function NewArticlePage() {
  const session = await requireSession();
  return (
    <>
      <p className="breadcrumb">
        <Link href="/console">← Articles</Link>
      </p>
      <h1>New article</h1>
      <p className="muted">
        Creates a draft that only you see until you publish it. Subtitle, tags and slug can be set on the next page.
      </p>
      <NewArticleForm csrf={session.csrfToken} />
    </>
  );
}
