import type { Metadata } from 'next';
import Link from 'next/link';
import type { PostStatus } from '@/server/model/post';
import { consoleParts, currentSession, hasStaleSessionCookie } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { describeProblem } from '@/server/console/problems';
import { countByStatus } from '@/server/console/queries';
import {
  ARTICLE_SORTS,
  listArticles,
  type ArticleListItem,
  type ArticlePage,
  type ArticleSort,
} from '@/server/console/article-search';
import { SignInForm } from './sign-in-form';
import { CONSOLE_HOME, safeReturnPath } from '@/server/console/return-path';
import { ChangesMarker, StatusBadge } from './components/status-badge';
import { Problem } from './components/problem';
import { formatDateTime } from './components/format';
import { PopularityHelp } from './components/popularity-help';
import { schedulesOf, type ScheduleView } from '@/server/services/posts/scheduled-publishing';

export const metadata: Metadata = { title: 'Articles' };

const FILTERS: { status: PostStatus | undefined; label: string }[] = [
  { status: undefined, label: 'All' },
  { status: 'draft', label: 'Drafts' },
  { status: 'pending_moderation', label: 'Pending moderation' },
  { status: 'published', label: 'Published' },
];

const SORT_LABELS: Record<ArticleSort, string> = {
  created: 'Newest first',
  updated: 'Last saved',
  published: 'Last published',
  popularity: 'Most popular',
};

const NOTICES: Record<string, string> = {
  deleted: 'The article was deleted.',
};

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function ConsoleHome({ searchParams }: { searchParams: SearchParams }) {
  const session = await currentSession();
  const params = await searchParams;
  if (!session) {
    const next = safeReturnPath(params.next);
    return (
      <SignInForm
        notice={(await hasStaleSessionCookie()) ? SESSION_ENDED : undefined}
        next={next === CONSOLE_HOME ? undefined : next}
      />
    );
  }

  const status = FILTERS.find((f) => f.status === params.status)?.status;
  const cursor = typeof params.cursor === 'string' && params.cursor ? params.cursor : undefined;
  const q = typeof params.q === 'string' ? params.q.slice(0, 200) : '';
  const sort = ARTICLE_SORTS.find((s) => s === params.sort) ?? 'created';
  /** This list's address with some of its parameters changed (the others kept). */
  const listPath = (change: Record<string, string | undefined>) => {
    const kept = { status, q: q || undefined, sort: sort === 'created' ? undefined : sort, ...change };
    const query = new URLSearchParams(Object.entries(kept).filter((e): e is [string, string] => Boolean(e[1])));
    return query.size ? `/console?${query}` : '/console';
  };
  const { db } = consoleParts();
  let page: ArticlePage;
  let counts: Record<PostStatus, number>;
  let schedules: Map<string, ScheduleView>;
  try {
    await spend(db, session.auth, 'read');
    page = await listArticles(db, session.auth.account.id, { q, sort, status, cursor });
    counts = await countByStatus(db, session.auth.account.id);
    schedules = await schedulesOf(
      db,
      session.auth.account.id,
      page.items.map((p) => p.id),
    );
  } catch (err) {
    return <Problem title="Articles" message={describeProblem(err)} />;
  }
  const total = counts.draft + counts.pending_moderation + counts.published;
  const notice = page.cursorRefused
    ? CURSOR_REFUSED
    : typeof params.notice === 'string'
      ? NOTICES[params.notice]
      : undefined;
  // A refused cursor gave the first page.
  const later = cursor !== undefined && !page.cursorRefused;

  return (
    <>
      <div className="page-head">
        <h1>Articles</h1>
        <Link href="/console/articles/new" className="button primary">
          New article
        </Link>
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <form method="get" action="/console" className="list-search" role="search" aria-label="Find articles">
        {status && <input type="hidden" name="status" value={status} />}
        <div>
          <label htmlFor="list-q">Search</label>
          <input
            id="list-q"
            name="q"
            type="search"
            defaultValue={q}
            placeholder="Words of a title, slug or tag"
            maxLength={200}
          />
        </div>
        <div>
          <label htmlFor="list-sort">Sort</label>
          <select id="list-sort" name="sort" defaultValue={sort}>
            {ARTICLE_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Find</button>
        {q && <Link href={listPath({ q: undefined })}>Clear search</Link>}
      </form>
      <nav aria-label="Filter by status" className="tabs">
        {FILTERS.map((f) => {
          const n = f.status ? counts[f.status] : total;
          return (
            <Link
              key={f.label}
              href={listPath({ status: f.status })}
              aria-current={f.status === status ? 'page' : undefined}
            >
              {f.label} <span className="count">{n}</span>
            </Link>
          );
        })}
      </nav>
      {page.items.length === 0 ? (
        <p className="empty">
          {later ? 'No more articles.' : q ? `No article has a title, slug or tag matching “${q}”.` : emptyText(status)}
        </p>
      ) : (
        <>
          <ul className="article-list" aria-label="Articles">
            {page.items.map((post) => (
              <ArticleRow
                key={post.id}
                post={post}
                schedule={schedules.get(post.id)}
                showLastPublished={sort === 'published'}
              />
            ))}
          </ul>
          <PopularityHelp id="popularity-help" />
        </>
      )}
      <nav aria-label="Pages" className="pager">
        {later && <Link href={listPath({})}>← First page</Link>}
        {page.next && (
          <Link href={listPath({ cursor: page.next })} rel="next">
            Next page →
          </Link>
        )}
      </nav>
    </>
  );
}

/** What an empty list means depends on the filter: only "All" and "Drafts" invite creating one. */
function emptyText(status: PostStatus | undefined): string {
  if (status === 'pending_moderation') return 'Nothing is waiting for a moderator.';
  if (status === 'published') return 'Nothing is published yet. Publish an article from its page.';
  return 'No articles here yet. Create one with “New article”, or let your integration create them through the API.';
}

const CURSOR_REFUSED = 'That page link was out of date or damaged, so the list starts again from the first page.';

const SESSION_ENDED =
  'Your console session has ended: it expired, or the token it was opened with was revoked or reissued. Sign in again with a current token.';

/**
 * One article of the list. Sorted by "Last published", a row shows the date it is sorted by: when
 * the version readers see was published (`last_published_at`), which an article waiting for
 * moderation still has while an earlier version is public; never `published_at`, which the API
 * leaves null for it.
 */
function ArticleRow({
  post,
  schedule,
  showLastPublished,
}: {
  post: ArticleListItem;
  schedule?: ScheduleView;
  showLastPublished: boolean;
}) {
  return (
    <li className="article-row">
      <div className="article-row__main">
        <Link href={`/console/articles/${post.id}`} className="article-row__title">
          {post.title}
        </Link>
        <div className="article-row__meta">
          <StatusBadge status={post.status} />
          {post.has_unpublished_changes && <ChangesMarker />}
          {schedule && (
            <span className={`badge ${schedule.failed || schedule.note ? 'badge--changes' : 'badge--scheduled'}`}>
              {schedule.failed ? 'Schedule stopped' : 'Scheduled'}{' '}
              <time dateTime={schedule.publishAt}>{formatDateTime(schedule.publishAt)}</time>
            </span>
          )}
          <span className="muted">
            Updated <time dateTime={post.updated_at}>{formatDateTime(post.updated_at)}</time>
            {showLastPublished && post.last_published_at && (
              <>
                {' '}
                · Last published <time dateTime={post.last_published_at}>{formatDateTime(post.last_published_at)}</time>
              </>
            )}
          </span>
        </div>
      </div>
      <dl className="counters" aria-label="Counters">
        <Counter label="Likes" value={post.like_count} />
        <Counter label="Comments" value={post.comment_count} />
        <Counter label="Saves" value={post.save_count} />
        <Counter label="Impressions" value={post.impression_count} />
        <Counter label="Opens" value={post.open_count} />
        <Counter label="Reads" value={post.read_count} />
        <Counter label="Full reads" value={post.complete_count} />
        <Counter label="Popularity" value={post.popularity} describedBy="popularity-help" />
      </dl>
    </li>
  );
}

function Counter({ label, value, describedBy }: { label: string; value: number; describedBy?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd aria-describedby={describedBy}>{value.toLocaleString('en')}</dd>
    </div>
  );
}
