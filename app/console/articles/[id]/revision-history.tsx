'use client';

import { useEffect, useId, useRef, useState } from 'react';
import type { RevisionSummary } from '@/server/model/revision';
import { CardTable } from '../../components/card-table';
import { PreviewFrame } from '../../components/preview-frame';
import { ReaderWidths } from '../../components/reader-widths';

/**
 * The history of every save of the working version: when, through which token, the title it
 * had, for a restore which version it restored, and whether the editor's autosave made it (a run
 * of autosaves of one visit is one entry: its newest version). Any two can be compared in the publish
 * diff's view (the newer one as readers get it, what it added and removed against the older
 * marked), and any older one restored: a restore is an ordinary save of that version (If-Match,
 * the same rules and report), so the version it replaces stays in the history. Restoring asks
 * first, and waits while the editor holds unsaved text.
 */
/** To the second, in UTC: saves a few seconds apart must read apart. */
function savedAt(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/** A save as the compare menus name it: its time, its token, and whether it was an autosave. */
const revisionLabel = (r: RevisionSummary) =>
  `${savedAt(r.savedAt)}${r.tokenName ? ` (${r.tokenName})` : ''}${r.autosaved ? ', autosaved' : ''}`;

/** One of the two menus that pick the saves to compare. */
function RevisionSelect({
  id,
  label,
  revisions,
  value,
  onChange,
}: {
  id: string;
  label: string;
  revisions: RevisionSummary[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {revisions.map((r) => (
          <option key={r.id} value={r.id}>
            {revisionLabel(r)}
          </option>
        ))}
      </select>
    </div>
  );
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
  // The version a Restore asks about; the dialog is open while there is one.
  const [asked, setAsked] = useState<RevisionSummary | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const blocked = unsaved || restoring;
  useEffect(() => {
    if (!asked || dialog.current?.open) return;
    dialog.current?.showModal();
    // A restore replaces the working text (as ConfirmAction's dialogs that take something away),
    // so the dialog opens on Cancel: Enter or a hurried Space never confirms it. Focused here,
    // not by autoFocus: the dialog opens long after its buttons were mounted.
    cancel.current?.focus();
  }, [asked]);
  const confirmRestore = () => {
    const revision = asked;
    dialog.current?.close();
    // The button's guard again: nothing can be typed behind a modal dialog, but a save can
    // start meanwhile (Ctrl+S saves wherever the focus is).
    if (revision && !blocked) onRestore(revision);
  };

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
      <CardTable
        className="history__list"
        caption="Saved versions, newest first"
        columns={['Saved', 'Token', 'Title', 'Markdown']}
      >
        {revisions.map((r, i) => (
          <tr key={r.id}>
            <td data-label="Saved">
              <time dateTime={r.savedAt}>{savedAt(r.savedAt)}</time>
              {r.restoredFrom && (
                <div className="muted">
                  Restored from <time dateTime={r.restoredFrom}>{savedAt(r.restoredFrom)}</time>
                </div>
              )}
            </td>
            <td data-label="Token">
              {r.tokenName ?? <span className="muted">unknown</span>}
              {r.autosaved && (
                <span
                  className="badge"
                  title="Saved by the editor's autosave: a run of autosaves is kept as one entry, its newest"
                >
                  autosaved
                </span>
              )}
            </td>
            <td data-label="Title">{r.title}</td>
            <td data-label="Markdown">{r.markdownLength.toLocaleString('en')} characters</td>
            <td>
              {i === 0 ? (
                <span className="badge">current</span>
              ) : (
                <button
                  type="button"
                  aria-disabled={blocked || undefined}
                  aria-label={`Restore the version saved ${savedAt(r.savedAt)}`}
                  aria-haspopup="dialog"
                  onClick={() => {
                    // With unsaved text the dialog does not even open: the notice above says why.
                    if (!blocked) setAsked(r);
                  }}
                >
                  Restore
                </button>
              )}
            </td>
          </tr>
        ))}
      </CardTable>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog" onClose={() => setAsked(null)}>
        {/* The heading is there while closed too, so aria-labelledby always names something. */}
        <h2 id={titleId}>{asked ? `Restore the version saved ${savedAt(asked.savedAt)}?` : 'Restore a version?'}</h2>
        {asked && (
          <>
            <p>
              The version saved <time dateTime={asked.savedAt}>{savedAt(asked.savedAt)}</time> becomes the working
              version: it replaces the text in the editor and is saved as a new entry of the history, &ldquo;Restored
              from {savedAt(asked.savedAt)}&rdquo;.
            </p>
            {revisions[0] && (
              <p>
                The current working version, saved{' '}
                <time dateTime={revisions[0].savedAt}>{savedAt(revisions[0].savedAt)}</time>, stays in the history, so
                it can be restored in turn.
              </p>
            )}
          </>
        )}
        <div className="dialog__buttons">
          <button ref={cancel} type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" className="caution" onClick={confirmRestore}>
            Restore
          </button>
        </div>
      </dialog>
      {revisions.length >= 2 && (
        <form
          className="history__compare"
          onSubmit={(e) => {
            e.preventDefault();
            setShown({ from, to });
          }}
        >
          <RevisionSelect id="history-from" label="Compare" revisions={revisions} value={from} onChange={setFrom} />
          <RevisionSelect id="history-to" label="with" revisions={revisions} value={to} onChange={setTo} />
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
