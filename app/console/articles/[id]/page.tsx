import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { consoleParts, requireSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { editorLibrary, type LibraryItem } from '@/server/console/media-library';
import { dailyMediaBytesUsed } from '@/server/services/access/account-usage';
import { describeProblem } from '@/server/console/problems';
import { UUID_PATTERN } from '@/server/foundation/uuid';
import { isDomainError } from '@/server/foundation/errors';
import { getEditorPage } from '@/server/services/posts/post-reads';
import type { RevisionSummary } from '@/server/model/revision';
import { listRevisions, REVISIONS_KEPT } from '@/server/services/posts/revisions';
import { canonicalPath } from '@/server/services/posts/post-view';
import type { ArticleView } from '@/server/reader-pages/article-document';
import { fieldChanges, type FieldChange } from '@/server/console/publish-diff';
import { DEFERRED_MARKDOWN_CHARS } from '@/server/console/editor-fields';
import {
  cancelSchedule,
  deleteArticle,
  publishArticle,
  scheduleArticle,
  unpublishArticle,
} from '../../actions/articles';
import { scheduleOf, type ScheduleView } from '@/server/services/posts/scheduled-publishing';
import { ConfirmAction } from '../../components/confirm-action';
import { ChangesMarker, StatusBadge } from '../../components/status-badge';
import { Problem } from '../../components/problem';
import { formatDateTime } from '../../components/format';
import { PreviewFrame } from '../../components/preview-frame';
import { ReaderWidths } from '../../components/reader-widths';
import { ReaderStats } from '../../components/reader-stats';
import { ArticleEditor } from './editor';
import { PublishAction } from './publish-action';
import { ScheduleAction, ScheduleNote } from './schedule-action';
import { socialCardFor } from '@/server/console/social-card-source';
import type { SocialCardFields } from '@/server/console/social-card';
import { SocialCard } from './social-card';

export const metadata: Metadata = { title: 'Article' };

type Params = Promise<{ id: string }>;

export default async function ArticlePage({ params }: { params: Params }) {
  const { id } = await params;
  const session = await requireSession();
  if (!UUID_PATTERN.test(id)) notFound();
  const { db } = consoleParts();
  let data: Awaited<ReturnType<typeof getEditorPage>>;
  let library: LibraryItem[];
  let quotaUsed: number;
  let revisions: RevisionSummary[];
  let schedule: ScheduleView | null;
  let card: SocialCardFields | null;
  try {
    // One read, like GET /posts/{id}; the preview frames this page embeds are part of it.
    await spend(db, session.auth, 'read');
    data = await getEditorPage(db, session.auth.account.id, id, DEFERRED_MARKDOWN_CHARS);
    library = await editorLibrary(db, session.auth.account.id);
    quotaUsed = await dailyMediaBytesUsed(db, session.auth.account.id);
    revisions = await listRevisions(db, session.auth.account.id, id);
    schedule = await scheduleOf(db, session.auth.account.id, id);
    card = await socialCardFor(db, session.auth.account, data.post, data.publishedFields?.slug ?? null);
  } catch (err) {
    if (isDomainError(err, 'not_found')) notFound();
    return <Problem title="Article" message={describeProblem(err)} />;
  }
  const { post, etag, markdown, publishedFields, hasSubmitted, moderationNote } = data;
  const fields = { id: post.id, csrf: session.csrfToken };
  const publicPath = publishedFields ? canonicalPath(publishedFields.slug, post.public_id) : null;
  // A large article's text is not read here: the editor loads it after the page shows
  // (DEFERRED_MARKDOWN_CHARS), and its html only ever goes to the preview frames.
  const deferMarkdown = markdown === null;
  const showPublished =
    Boolean(publishedFields) && (post.has_unpublished_changes || post.status === 'pending_moderation');

  return (
    <>
      <p className="breadcrumb">
        <Link href="/console">← Articles</Link>
      </p>
      <div className="page-head">
        <div>
          <h1>{post.title}</h1>
          <div className="article-row__meta">
            <StatusBadge status={post.status} />
            {post.has_unpublished_changes && <ChangesMarker />}
            <span className="muted">
              Created <time dateTime={post.created_at}>{formatDateTime(post.created_at)}</time> · Updated{' '}
              <time dateTime={post.updated_at}>{formatDateTime(post.updated_at)}</time>
              {post.published_at && (
                <>
                  {' '}
                  · Published <time dateTime={post.published_at}>{formatDateTime(post.published_at)}</time>
                </>
              )}
            </span>
          </div>
          {publicPath && (
            <p className="muted">
              Public page: <a href={publicPath}>{publicPath}</a>
            </p>
          )}
        </div>
        <div className="actions">
          <ScheduleAction
            schedule={schedule}
            fields={fields}
            scheduleAction={scheduleArticle}
            cancelAction={cancelSchedule}
            unavailable={
              post.status === 'pending_moderation'
                ? 'Waiting for moderation: schedule it once it is decided.'
                : undefined
            }
          />
          <ConfirmAction
            action={unpublishArticle}
            unavailable={post.status === 'draft' ? 'A draft is not published.' : undefined}
            fields={fields}
            label="Unpublish"
            question="Unpublish this article?"
            detail="The public page disappears; the text stays here as a draft."
            confirmLabel="Unpublish"
            caution
          />
          <ConfirmAction
            action={deleteArticle}
            fields={fields}
            label="Delete"
            question="Delete this article?"
            detail="It disappears from the API, the console and the public page. This cannot be undone here."
            confirmLabel="Delete"
            danger
          />
        </div>
      </div>

      <ReaderStats post={post} accountId={session.auth.account.id} />

      {schedule && <ScheduleNote schedule={schedule} />}
      {post.status === 'pending_moderation' && (
        <p className="notice" role="status">
          This version waits for a moderator.{' '}
          {publishedFields ? 'Readers still see the last approved version.' : 'Nothing is public yet.'}
        </p>
      )}
      {moderationNote && (
        <p className="warning-box" role="status">
          A moderator rejected the last submitted version: {moderationNote}
        </p>
      )}

      <ArticleEditor
        postId={post.id}
        csrf={session.csrfToken}
        version={etag}
        initial={{
          title: post.title,
          subtitle: post.subtitle ?? '',
          slug: post.slug,
          tags: post.tags.map((t) => t.name).join(', '),
          markdown: markdown ?? '',
          cover_asset_id: post.cover_asset_id ?? '',
        }}
        savedCover={
          post.cover_asset_id && post.cover_width && post.cover_height
            ? { id: post.cover_asset_id, width: post.cover_width, height: post.cover_height }
            : null
        }
        markdownSource={deferMarkdown ? `/console/articles/${post.id}/markdown` : undefined}
        library={library}
        quotaLeft={Math.max(0, session.auth.account.dailyMediaBytes - quotaUsed)}
        revisions={revisions}
        revisionsKept={REVISIONS_KEPT}
        savedAt={post.updated_at}
        publish={
          <PublishAction
            action={publishArticle}
            unavailable={
              post.status === 'pending_moderation'
                ? 'Waiting for moderation: publish again once it is decided.'
                : post.status === 'published' && !post.has_unpublished_changes
                  ? 'Nothing to publish: readers already see the saved working version.'
                  : undefined
            }
            fields={fields}
            detail={`${
              session.auth.account.isModerated
                ? 'Your account is moderated: this version goes to a moderator first and becomes public once approved.'
                : 'Readers will see the working version at the public address.'
            }${showPublished ? ` ${publishSummary(fieldChanges(publishedFields!, workingFields(post)))}` : ''}`}
            changesSrc={showPublished ? `/console/preview/${post.id}/changes` : undefined}
          />
        }
      />

      {card && <SocialCard {...card} />}

      {showPublished && publishedFields && (
        <section className="compare publish-changes" aria-labelledby="publish-changes-heading">
          <h2 id="publish-changes-heading">What changes on publish</h2>
          <p className="muted">
            Readers see the published version until the saved working version is published. Both are shown as readers
            get them, side by side in one frame that scrolls both together, then the working version with what
            publishing adds and removes marked.
          </p>
          <PublishedFieldChanges changes={fieldChanges(publishedFields, workingFields(post))} />
          <ReaderWidths>
            <PreviewFrame
              title="Published and working versions, side by side"
              captions={['Published version (what readers see now)', 'Working version (saved)']}
              src={`/console/preview/${post.id}/side-by-side?left=published&right=working`}
            />
            <figure>
              <figcaption>
                Highlighted changes (green: added on publish, red: removed, yellow: edited in place with the words
                marked)
              </figcaption>
              <PreviewFrame
                title="Changes on publish"
                className="diff-frame"
                src={`/console/preview/${post.id}/changes`}
              />
            </figure>
          </ReaderWidths>
        </section>
      )}
      {hasSubmitted && (
        <section className="compare" aria-labelledby="submitted-heading">
          <h2 id="submitted-heading">Submitted for moderation</h2>
          <ReaderWidths>
            <PreviewFrame title="Submitted version" src={`/console/preview/${post.id}?version=submitted`} />
          </ReaderWidths>
        </section>
      )}
    </>
  );
}

const FIELD_NAMES = { title: 'Title', subtitle: 'Subtitle', tags: 'Tags', cover: 'Cover image' } as const;

/** What the publish dialog says changes, in one sentence; the marked body is in "What changes on publish". */
function publishSummary(changes: FieldChange[]): string {
  const fields = changes.map((c) => FIELD_NAMES[c.field].toLowerCase());
  return fields.length
    ? `Changes to the ${fields.join(', ')} and the body are marked under "What changes on publish".`
    : 'The body changes are marked under "What changes on publish".';
}

function PublishedFieldChanges({ changes }: { changes: FieldChange[] }) {
  if (changes.length === 0) return <p>Title, subtitle, tags and cover stay as readers see them now.</p>;
  return (
    <table className="publish-changes__fields">
      <caption className="visually-hidden">Fields that change on publish</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Readers see now</th>
          <th scope="col">After publishing</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.field}>
            <th scope="row">{FIELD_NAMES[c.field]}</th>
            <td>{c.before ? <del>{c.before}</del> : <span className="muted">(none)</span>}</td>
            <td>{c.after ? <ins>{c.after}</ins> : <span className="muted">(none)</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The saved working version's fields, as the publish diff compares them with the published ones. */
function workingFields(post: Awaited<ReturnType<typeof getEditorPage>>['post']): Omit<ArticleView, 'html'> {
  return {
    title: post.title,
    subtitle: post.subtitle,
    tags: post.tags,
    cover:
      post.cover_url && post.cover_width && post.cover_height
        ? { url: post.cover_url, width: post.cover_width, height: post.cover_height }
        : null,
  };
}
