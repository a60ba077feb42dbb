import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { consoleParts, requireSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { describeProblem } from '@/server/console/problems';
import { removedMarkup } from '@/server/console/removed-markup';
import { listPending, type PendingArticle } from '@/server/services/posts/moderation';
import { approveArticle, rejectArticle } from '../actions/moderation';
import { ConfirmAction } from '../components/confirm-action';
import { Problem } from '../components/problem';
import { formatDateTime } from '../components/format';
import { PreviewFrame } from '../components/preview-frame';
import { ReaderWidths } from '../components/reader-widths';
import { RemovedFromReaders } from '../components/removed-from-readers';
import { RejectForm } from './reject-form';

export const metadata: Metadata = { title: 'Moderation' };

const DONE: Record<string, string> = {
  approved: 'Approved: the submitted version is public now.',
  rejected: 'Rejected: the article is back to draft with your reason attached.',
  'rejected-still-public': 'Rejected: the earlier approved version stays public; the author sees your reason.',
};

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function ModerationPage({ searchParams }: { searchParams: SearchParams }) {
  const session = await requireSession();
  // Not an error page: to everyone else the moderation section does not exist.
  if (!session.auth.account.isAdmin) notFound();
  const { done } = await searchParams;
  const { db } = consoleParts();
  let pending: PendingArticle[];
  try {
    await spend(db, session.auth, 'read');
    pending = await listPending(db);
  } catch (err) {
    return <Problem title="Moderation" message={describeProblem(err)} />;
  }
  const notice = typeof done === 'string' ? DONE[done] : undefined;

  return (
    <>
      <h1>Moderation</h1>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <p className="muted">
        Articles of moderated accounts wait here after publish. Approve makes the submitted version public; reject
        returns it to its author with your reason.
      </p>
      {pending.length === 0 ? (
        <p className="empty">Nothing is waiting for moderation.</p>
      ) : (
        <ol className="queue">
          {pending.map((post) => (
            <li key={post.id} className="card queue__item" data-post-id={post.id}>
              <div className="queue__head">
                <div>
                  <h2>{post.title}</h2>
                  <p className="muted">
                    by @{post.handle} · submitted{' '}
                    <time dateTime={post.submittedAt}>{formatDateTime(post.submittedAt)}</time>
                    {post.hasPublished ? ' · an earlier version is public' : ''}
                  </p>
                </div>
                <ConfirmAction
                  action={approveArticle}
                  fields={{ id: post.id, csrf: session.csrfToken }}
                  label="Approve"
                  question="Approve and publish this version?"
                  confirmLabel="Approve"
                />
              </div>
              <SanitizerRemovals markdown={post.submittedMarkdown} html={post.submittedHtml} />
              <ReaderWidths>
                <PreviewFrame
                  title={`Submitted version of ${post.title}`}
                  src={`/console/preview/${post.id}?version=submitted`}
                />
              </ReaderWidths>
              <RejectForm action={rejectArticle} id={post.id} csrf={session.csrfToken} />
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/**
 * What the sanitizer took out of the submitted Markdown, so the moderator knows what the author
 * wrote that the preview does not show (a script, an embed of a host not on the allowlist…).
 */
function SanitizerRemovals({ markdown, html }: { markdown: string | null; html: string }) {
  if (markdown === null)
    return (
      <p className="muted">
        Submitted before the console kept a submission&apos;s Markdown: what the sanitizer removed cannot be listed.
      </p>
    );
  const removed = removedMarkup(markdown, html);
  if (removed.length === 0) return <p className="muted">The sanitizer removed nothing from the submitted Markdown.</p>;
  return (
    <RemovedFromReaders
      removed={removed}
      intro="The submitted Markdown has these, but the sanitizer took them out of the page readers would get (the preview below shows that page):"
      line={(line) => `Line ${line}`}
    />
  );
}
