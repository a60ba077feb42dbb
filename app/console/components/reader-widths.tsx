'use client';

import { useEffect, useId, useRef, useState } from 'react';

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
 * Width toggles for the preview frames inside it. Each frame is a separate document with the
 * readers' stylesheet, so giving it a reader's viewport width lays the article out exactly as
 * that reader gets it (media queries included). A frame wider than the panel is scaled down to
 * fit it, as a thumbnail of that screen, and is made taller by the same factor so it still fills
 * the panel's height; nothing is cut off.
 */
export function ReaderWidths({ children }: { children: React.ReactNode }) {
  const [width, setWidth] = useState<Width>('fit');
  const [panel, setPanel] = useState(0);
  const frames = useRef<HTMLDivElement>(null);
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

  useEffect(() => {
    const el = frames.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setPanel(entry?.contentRect.width ?? 0));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const px = WIDTHS.find((w) => w.value === width)?.px ?? 0;
  // The frame's border (1 px each side) is drawn at the same scale.
  const scale = px && panel ? Math.min(1, panel / (px + 2)) : 1;
  const style = { '--reader-width': `${px}px`, '--reader-scale': String(scale) } as React.CSSProperties;

  return (
    <div className="reader-widths" data-width={width} style={style}>
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
        {scale < 1 && <span className="muted reader-widths__scale">shown at {Math.round(scale * 100)} %</span>}
      </fieldset>
      <div ref={frames} className="reader-widths__frames">
        {children}
      </div>
    </div>
  );
}
