'use client';

import type { EditorFields } from '@/server/console/editor-fields';
import type { StoredVersion } from './use-editor-fields';
import { changedFields } from './field-changes';

const FIELD_LABELS: Record<keyof EditorFields, string> = {
  title: 'Title',
  subtitle: 'Subtitle',
  slug: 'Slug',
  tags: 'Tags',
  markdown: 'Markdown',
};

const FIELDS = Object.keys(FIELD_LABELS) as (keyof EditorFields)[];

/**
 * A save refused because the article changed elsewhere: what happened (said once), and the ways
 * on. Compared, it shows only the real differences: fields changed here that the current version
 * has otherwise. A field changed only elsewhere is named, not shown side by side: "Keep my text"
 * keeps it as it is now, so there is nothing to choose. One-line fields read as one line.
 */
export function ConflictReport({
  message,
  theirs,
  mine,
  base,
  comparing,
  onReload,
  onCompare,
  onKeepMine,
  onTakeTheirs,
}: {
  /** Why the save was refused, in words (the problem's one sentence). */
  message: string;
  theirs: StoredVersion | null;
  mine: EditorFields;
  /** The stored fields the unsaved text started from: what differs from them was changed here. */
  base: EditorFields;
  comparing: boolean;
  onReload: () => void;
  onCompare: () => void;
  onKeepMine: (theirs: StoredVersion) => void;
  onTakeTheirs: (theirs: StoredVersion) => void;
}) {
  const changedHere = new Set(changedFields(mine, base));
  const differing = theirs ? FIELDS.filter((k) => changedHere.has(k) && theirs.fields[k] !== mine[k]) : [];
  const onlyElsewhere = theirs ? FIELDS.filter((k) => !changedHere.has(k) && theirs.fields[k] !== base[k]) : [];
  return (
    <div className="warning-box conflict" role="alert">
      <p>
        <strong>Not saved.</strong> {message} Your text is still here; nothing was lost.
      </p>
      <div className="actions">
        <button type="button" onClick={onReload}>
          Reload the current version
        </button>
        <button type="button" onClick={onCompare} disabled={comparing}>
          {comparing ? 'Loading…' : 'Compare with the current version'}
        </button>
      </div>
      {theirs && (
        <section aria-label="Your text and the current version">
          {differing.length === 0 ? (
            <p>Your changes do not clash with the current version.</p>
          ) : (
            differing.map((k) => <FieldPair key={k} field={k} theirs={theirs.fields[k]} mine={mine[k]} />)
          )}
          {onlyElsewhere.length > 0 && (
            <p>
              Changed only in the current version: {onlyElsewhere.map((k) => FIELD_LABELS[k]).join(', ')}. Keeping your
              text keeps these as they are now.
            </p>
          )}
          <div className="actions">
            <button type="button" onClick={() => onKeepMine(theirs)}>
              Keep my text (my changed fields replace theirs on the next Save; the rest stays as it is now)
            </button>
            <button type="button" onClick={() => onTakeTheirs(theirs)}>
              Use the current version (drop my text)
            </button>
          </div>
        </section>
      )}
    </div>
  );
}

function FieldPair({ field, theirs, mine }: { field: keyof EditorFields; theirs: string; mine: string }) {
  const multiline = field === 'markdown';
  const box = (id: string, value: string) =>
    multiline ? <textarea id={id} readOnly value={value} rows={10} /> : <input id={id} readOnly value={value} />;
  return (
    <div className={`conflict__field${multiline ? '' : ' conflict__field--line'}`}>
      <h3>{FIELD_LABELS[field]}</h3>
      <div className="conflict__pair">
        <div>
          <label htmlFor={`conflict-theirs-${field}`}>Current version</label>
          {box(`conflict-theirs-${field}`, theirs)}
        </div>
        <div>
          <label htmlFor={`conflict-mine-${field}`}>Your unsaved text</label>
          {box(`conflict-mine-${field}`, mine)}
        </div>
      </div>
    </div>
  );
}
