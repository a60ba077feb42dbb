'use client';

import type { Mark } from './markdown-marks';

/**
 * The marks of the editor's toolbar (markdown-marks.ts writes them). Each button keeps the focus
 * where the writer is typing when pressed with the pointer, so the mark lands on the selection;
 * from the keyboard, the selection the field had is used. The shortcuts are the editor's
 * (code-editor.ts MARK_KEYS), shown in each button's title and announced by aria-keyshortcuts.
 */
const MARKS: { mark: Mark; label: string; face: string; keys?: string }[] = [
  { mark: 'bold', label: 'Bold', face: 'B', keys: 'B' },
  { mark: 'italic', label: 'Italic', face: 'I', keys: 'I' },
  { mark: 'link', label: 'Link', face: 'Link', keys: 'K' },
  { mark: 'code', label: 'Code', face: '</>', keys: 'E' },
  { mark: 'heading', label: 'Heading', face: 'H' },
  { mark: 'quote', label: 'Quote', face: '❝' },
  { mark: 'bullets', label: 'Bulleted list', face: '•' },
  { mark: 'numbers', label: 'Numbered list', face: '1.' },
];

export function MarkdownToolbar({ onMark, disabled }: { onMark: (mark: Mark) => void; disabled: boolean }) {
  return (
    <div className="markdown-toolbar" role="group" aria-label="Formatting">
      {MARKS.map(({ mark, label, face, keys }) => (
        <button
          key={mark}
          type="button"
          className={`markdown-toolbar__${mark}`}
          aria-label={label}
          title={keys ? `${label} (Ctrl+${keys})` : label}
          aria-keyshortcuts={keys ? `Control+${keys} Meta+${keys}` : undefined}
          disabled={disabled}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onMark(mark)}
        >
          <span aria-hidden="true">{face}</span>
        </button>
      ))}
    </div>
  );
}
