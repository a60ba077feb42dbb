'use client';

import type { RestoreOutcome, SaveOutcome } from '../../actions/articles';
import { RemovedFromReaders } from '../../components/removed-from-readers';
import type { CreatedReport } from './use-editor-fields';

/**
 * What a save, a create or a restore reported, in place: images that could not be copied (with
 * a retry when trying again can help), warnings explained, and what the sanitizer removed from
 * what readers see, each linked to its line of the Markdown.
 */

/** The 1-based line of the first place `text` is written in the Markdown, or null. */
export function lineOf(markdown: string, text: string): number | null {
  const at = markdown.indexOf(text);
  return at === -1 ? null : markdown.slice(0, at).split('\n').length;
}

export function SaveReport({
  outcome,
  onRetry,
  onShowLine,
  lineOf: lineOfText,
}: {
  outcome: SaveOutcome | RestoreOutcome | CreatedReport | null;
  onRetry: () => void;
  onShowLine: (line: number) => void;
  lineOf: (text: string) => number | null;
}) {
  if (!outcome) return null;
  if (!outcome.ok) {
    return (
      <p className="error" role="alert">
        Not saved. {outcome.error}
      </p>
    );
  }
  return (
    <div role="status">
      <p className="success">
        {'created' in outcome
          ? 'Draft created. Edit it below; publish when it reads right.'
          : 'restoredFrom' in outcome
            ? `Restored the version saved ${outcome.restoredFrom.slice(0, 19).replace('T', ' ')} UTC: it is the working version now, saved.`
            : 'Saved.'}
      </p>
      {outcome.failedImages.length > 0 && (
        <div className="warning-box">
          <h3>Images that could not be copied into storage</h3>
          <p>
            These images still point to their original address. Readers&apos; browsers would load them from there, if at
            all.
          </p>
          <ul className="problem-list">
            {outcome.failedImages.map((img) => {
              const line = lineOfText(img.url);
              return (
                <li key={img.url}>
                  {line !== null && (
                    <>
                      <button type="button" className="link-button" onClick={() => onShowLine(line)}>
                        Line {line}
                      </button>
                      :{' '}
                    </>
                  )}
                  <code>{img.url}</code>
                  <p>{img.reason}</p>
                  {img.retryable && (
                    <button type="button" onClick={onRetry} aria-label={`Retry copying ${img.url}`}>
                      Retry
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {outcome.warnings.length > 0 && (
        <div className="warning-box">
          <h3>Warnings</h3>
          <ul className="problem-list">
            {outcome.warnings.map((w) => (
              <li key={w.text}>{w.explanation ? <p>{w.explanation}</p> : <code>{w.text}</code>}</li>
            ))}
          </ul>
        </div>
      )}
      {outcome.removed.length > 0 && (
        <RemovedFromReaders
          removed={outcome.removed}
          intro="Your Markdown still has these, but the sanitizer took them out of the page readers get (delete them from the text, or leave them: they will not show):"
          line={(line) => (
            <button type="button" className="link-button" onClick={() => onShowLine(line)}>
              Line {line}
            </button>
          )}
        />
      )}
    </div>
  );
}
