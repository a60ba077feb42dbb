'use client';

import { createContext, useEffect, useId, useState } from 'react';

/** Viewport widths of common readers' screens, in CSS pixels. */
const WIDTHS = [
  { value: 'fit', label: 'Fit the panel', px: 0 },
  { value: 'phone', label: 'Phone (375 px)', px: 375 },
  { value: 'tablet', label: 'Tablet (768 px)', px: 768 },
  { value: 'desktop', label: 'Desktop (1280 px)', px: 1280 },
] as const;

type Width = (typeof WIDTHS)[number]['value'];

const STORAGE_KEY = 'console-reader-width';

function readStoredWidth(): Width | null {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return WIDTHS.find((w) => w.value === value)?.value ?? null;
  } catch {
    return null;
  }
}

/**
 * The reader's viewport width chosen (0: fit the panel), for the frames inside a ReaderWidths
 * (preview-frame.tsx). Each frame scales itself to the room it has, because frames of one panel
 * differ (a side-by-side frame holds two readers' screens, a figure may be narrower).
 */
export const ReaderWidthContext = createContext(0);

/**
 * Width toggles for the preview frames inside it. Each frame is a separate document with the
 * readers' stylesheet, so giving it a reader's viewport width lays the article out exactly as
 * that reader gets it (media queries included). A frame wider than its room is scaled down to
 * fit it, as a thumbnail of that screen (PreviewFrame).
 */
export function ReaderWidths({ children }: { children: React.ReactNode }) {
  const [width, setWidth] = useState<Width>('fit');
  const name = useId();

  // The chosen width is the maintainer's preference on this browser: a reload keeps it.
  useEffect(() => {
    const stored = readStoredWidth();
    // eslint-disable-next-line react-hooks/set-state-in-effect -- once, after hydration (storage is browser-only)
    if (stored) setWidth(stored);
  }, []);
  const choose = (value: Width) => {
    setWidth(value);
    try {
      window.localStorage.setItem(STORAGE_KEY, value);
    } catch {
      // storage disabled: the choice lasts until the page is left
    }
  };

  const px = WIDTHS.find((w) => w.value === width)?.px ?? 0;

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
              onChange={() => choose(w.value)}
            />
            {w.label}
          </label>
        ))}
      </fieldset>
      <div className="reader-widths__frames">
        <ReaderWidthContext value={px}>{children}</ReaderWidthContext>
      </div>
    </div>
  );
}
