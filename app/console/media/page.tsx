import type { Metadata } from 'next';
import { consoleParts, requireSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { markdownSnippet, recentMedia } from '@/server/console/media-library';
import { describeProblem } from '@/server/console/problems';
import type { MediaRecord } from '@/server/model/media';
import { storeMediaFromUrl } from '../actions/media';
import { Problem } from '../components/problem';
import { formatBytes, formatDateTime } from '../components/format';
import { CopyButton } from '../components/copy-button';
import { FromUrlForm, UploadBox } from './media-forms';

export const metadata: Metadata = { title: 'Media' };

export default async function MediaPage() {
  const session = await requireSession();
  const { db } = consoleParts();
  let items: MediaRecord[];
  try {
    await spend(db, session.auth, 'read');
    items = await recentMedia(db, session.auth.account.id);
  } catch (err) {
    return <Problem title="Media" message={describeProblem(err)} />;
  }
  return (
    <>
      <h1>Media</h1>
      <p className="muted">
        Images are stored once and served from <code>/api/media/…</code>. Paste the Markdown snippet into an article, or
        give its id to your integration as an article&apos;s cover image. Uploads count against the media limit and
        today’s quota (see Account).
      </p>
      <div className="media-forms">
        <UploadBox csrf={session.csrfToken} />
        <FromUrlForm action={storeMediaFromUrl} csrf={session.csrfToken} />
      </div>
      <h2>Stored files</h2>
      {items.length === 0 ? (
        <p className="empty">Nothing stored yet.</p>
      ) : (
        <ul className="media-grid">
          {items.map((m) => (
            <li key={m.id}>
              {m.kind === 'gif' ? (
                <video
                  src={`/api/media/${m.id}`}
                  muted
                  loop
                  autoPlay
                  playsInline
                  className="media-thumb"
                  aria-label="Stored GIF video"
                />
              ) : (
                // eslint-disable-next-line @next/next/no-img-element -- stored files are served as they are
                <img src={`/api/media/${m.id}`} alt="" width={m.width} height={m.height} loading="lazy" />
              )}
              <p className="media-meta">
                {m.kind === 'gif' ? 'GIF video' : m.mimeType.replace('image/', '').toUpperCase()} · {m.width}×{m.height}{' '}
                · {formatBytes(m.byteSize)}
                <br />
                <span className="muted">{formatDateTime(m.createdAt)}</span>
              </p>
              <code className="snippet">{markdownSnippet(m)}</code>
              <div className="media-actions">
                <CopyButton text={markdownSnippet(m)} label="Copy Markdown" />
                <CopyButton text={m.id} label="Copy id" />
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
