import type { ReactNode } from 'react';
import type { RemovedMarkup } from '@/server/console/removed-markup';

/**
 * What the sanitizer took out of a text, in the same words wherever the console shows it: after
 * a save in the editor (each line a button to it) and in the moderation queue (the submitted
 * Markdown, lines as text).
 */
export function RemovedFromReaders({
  removed,
  intro,
  line,
}: {
  removed: RemovedMarkup[];
  intro: string;
  /** How a line number is shown: a button to it in the editor, plain text elsewhere. */
  line: (line: number) => ReactNode;
}) {
  return (
    <div className="warning-box">
      <h3>Removed from what readers see</h3>
      <p>{intro}</p>
      <ul className="problem-list">
        {removed.map((r) => (
          <li key={`${r.line}:${r.text}`}>
            {line(r.line)}: {r.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
