'use client';

import { useState } from 'react';
import type { RevisionSummary } from '@/server/services/revisions';
import { PreviewFrame } from '../../components/preview-frame';
import { ReaderWidths } from '../../components/reader-widths';

/**
 * The history of every save of the working version: when, through which token, and the title
 * it had. Any two can be compared in the publish diff's view (the newer one as readers get it,
 * what it added and removed against the older marked), and any older one restored: a restore is
 * an ordinary save of that version (If-Match, the same rules and report), so the version it
 * replaces stays in the history. Restoring waits while the editor holds unsaved text.
 */
/** To the second, in UTC: saves a few seconds apart must read apart. */
function savedAt(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

export function RevisionHistory({
  postId,
  revisions,
  kept,
  unsaved,
  restoring,
  onRestore,
}: {
  postId: string;
  /** Newest first; the first is the working version as saved. */
  revisions: RevisionSummary[];
  /** How many saves an article keeps (REVISIONS_KEPT). */
  kept: number;
  unsaved: boolean;
  restoring: boolean;
  onRestore: (revision: RevisionSummary) => void;
}) {
  const [from, setFrom] = useState(revisions[1]?.id ?? '');
  const [to, setTo] = useState(revisions[0]?.id ?? '');
  const [shown, setShown] = useState<{ from: string; to: string } | null>(null);
  const savedAtOf = (id: string) => savedAt(revisions.find((r) => r.id === id)?.savedAt ?? '');
  const label = (r: RevisionSummary) => `${savedAt(r.savedAt)}${r.tokenName ? ` (${r.tokenName})` : ''}`;

  return (
    <section className="history" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <p className="muted">
        Each save of the working version is kept, the newest {kept} of them. Restoring one saves it again as the working
        version; the version it replaces stays in this list.
      </p>
      {unsaved && (
        <p className="notice" role="status">
          You have unsaved changes: save or discard them before restoring an older version.
        </p>
      )}
      <div className="table-wrap">
        <table className="history__list">
          <caption className="visually-hidden">Saved versions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Saved</th>
              <th scope="col">Token</th>
              <th scope="col">Title</th>
              <th scope="col">Markdown</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {revisions.map((r, i) => (
              <tr key={r.id}>
                <td data-label="Saved">
                  <time dateTime={r.savedAt}>{savedAt(r.savedAt)}</time>
                </td>
                <td data-label="Token">{r.tokenName ?? <span className="muted">unknown</span>}</td>
                <td data-label="Title">{r.title}</td>
                <td data-label="Markdown">{r.markdownLength.toLocaleString('en')} characters</td>
                <td>
                  {i === 0 ? (
                    <span className="badge">current</span>
                  ) : (
                    <button
                      type="button"
                      aria-disabled={unsaved || restoring || undefined}
                      aria-label={`Restore the version saved ${savedAt(r.savedAt)}`}
                      onClick={() => {
                        if (!unsaved && !restoring) onRestore(r);
                      }}
                    >
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revisions.length >= 2 && (
        <form
          className="history__compare"
          onSubmit={(e) => {
            e.preventDefault();
            setShown({ from, to });
          }}
        >
          <div>
            <label htmlFor="history-from">Compare</label>
            <select id="history-from" value={from} onChange={(e) => setFrom(e.target.value)}>
              {revisions.map((r) => (
                <option key={r.id} value={r.id}>
                  {label(r)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="history-to">with</label>
            <select id="history-to" value={to} onChange={(e) => setTo(e.target.value)}>
              {revisions.map((r) => (
                <option key={r.id} value={r.id}>
                  {label(r)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Show changes</button>
        </form>
      )}
      {shown && (
        <ReaderWidths>
          <PreviewFrame
            title="The two saves, side by side"
            captions={[`Compared: saved ${savedAtOf(shown.from)}`, `With: saved ${savedAtOf(shown.to)}`]}
            src={`/console/preview/${postId}/side-by-side?${new URLSearchParams({ left: shown.from, right: shown.to })}`}
          />
          <figure>
            <figcaption>Highlighted changes (green: added, red: removed, yellow: edited in place)</figcaption>
            <PreviewFrame
              title="Changes between the two saves"
              className="diff-frame"
              src={`/console/preview/${postId}/history?${new URLSearchParams(shown)}`}
            />
          </figure>
        </ReaderWidths>
      )}
    </section>
  );
}
