import type { Metadata } from 'next';
import Link from 'next/link';
import { consoleParts, requireSession } from '@/server/console/context';
import { editorLibrary, type LibraryItem } from '@/server/console/media-library';
import { dailyMediaBytesUsed } from '@/server/services/access/account-usage';
import { describeProblem } from '@/server/console/problems';
import { Problem } from '../../components/problem';
import { NewArticleForm } from './new-article-form';

export const metadata: Metadata = { title: 'New article' };

export default async function NewArticlePage() {
  const session = await requireSession();
  const { db } = consoleParts();
  let library: LibraryItem[];
  let quotaUsed: number;
  try {
    library = await editorLibrary(db, session.auth.account.id);
    quotaUsed = await dailyMediaBytesUsed(db, session.auth.account.id);
  } catch (err) {
    return <Problem title="New article" message={describeProblem(err)} />;
  }
  return (
    <>
      <p className="breadcrumb">
        <Link href="/console">← Articles</Link>
      </p>
      <h1>New article</h1>
      <p className="muted">
        Creates a draft that only you see until you publish it. Images and islands can be added now; subtitle, tags,
        slug and cover on the next page.
      </p>
      <NewArticleForm
        csrf={session.csrfToken}
        library={library}
        quotaLeft={Math.max(0, session.auth.account.dailyMediaBytes - quotaUsed)}
      />
    </>
  );
}
