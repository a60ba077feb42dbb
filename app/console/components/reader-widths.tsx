'use client';

import { useId, useState } from 'react';

/** Viewport widths of common readers' screens, in CSS pixels. */
const WIDTHS = [
  { value: 'fit', label: 'Fit the panel' },
  { value: 'phone', label: 'Phone (375 px)' },
  { value: 'tablet', label: 'Tablet (768 px)' },
  { value: 'desktop', label: 'Desktop (1280 px)' },
] as const;

type Width = (typeof WIDTHS)[number]['value'];

/**
 * Width toggles for the preview frames inside it. Each frame is a separate document with the
 * readers' stylesheet, so giving it a reader's viewport width lays the article out exactly as
 * that reader gets it (media queries included); a frame wider than the panel scrolls sideways.
 */
export function ReaderWidths({ children }: { children: React.ReactNode }) {
  const [width, setWidth] = useState<Width>('fit');
  const name = useId();
  return (
    <div className="reader-widths" data-width={width}>
      <fieldset className="reader-widths__choice">
        <legend>Reader width</legend>
        {WIDTHS.map((w) => (
          <label key={w.value}>
            <input
              type="radio"
              name={name}
              value={w.value}
              checked={width === w.value}
              onChange={() => setWidth(w.value)}
            />
            {w.label}
          </label>
        ))}
      </fieldset>
      <div className="reader-widths__frames">{children}</div>
    </div>
  );
}
