'use client';

import { useContext, useEffect, useRef, useState } from 'react';
import { SIDE_BY_SIDE_GAP_PX } from '@/server/console/frame-layout';
import { ReaderWidthContext } from './reader-widths';

/**
 * One sandboxed preview frame inside a ReaderWidths. At a reader's width the frame's document
 * gets exactly that viewport; when that is wider than the panel it is scaled down, and the box
 * around it is the scaled size exactly: the box draws the border and clips, the frame inside is
 * transformed from its top-left corner, so the page fills the box (no negative margins, whose
 * give-back depended on the element around the frame) and the box takes no room it does not show.
 *
 * `captions` makes it a side-by-side frame (server/console/side-by-side.ts): two readers' screens
 * and the gap between them in one document, captioned above each column.
 */
export function PreviewFrame({
  title,
  src,
  name,
  className,
  captions,
}: {
  title: string;
  src: string;
  /** The frame's name, for a form posting into it (the live preview). */
  name?: string;
  /** Sets the frame's height through --frame-height (e.g. diff-frame). */
  className?: string;
  captions?: [left: string, right: string];
}) {
  const px = useContext(ReaderWidthContext);
  const group = useRef<HTMLDivElement>(null);
  // The room this frame has: the width of the element it sits in (a panel, a figure).
  const [room, setRoom] = useState(0);
  useEffect(() => {
    const parent = group.current?.parentElement;
    if (!parent) return;
    const observer = new ResizeObserver(([entry]) => setRoom(entry?.contentRect.width ?? 0));
    observer.observe(parent);
    return () => observer.disconnect();
  }, []);
  const span = px && captions ? 2 * px + SIDE_BY_SIDE_GAP_PX : px;
  // The box's border (1 px each side) is not scaled; the page inside it is.
  const scale = span && room ? Math.min(1, (room - 2) / span) : 1;
  const style = span
    ? ({ '--frame-width': `${span}px`, '--frame-scale': String(scale) } as React.CSSProperties)
    : undefined;
  return (
    <div ref={group} className="preview-frame-group" style={style} data-reader-width={span || undefined}>
      {scale < 1 && <p className="muted preview-frame__scale">shown at {Math.round(scale * 100)} %</p>}
      {captions && (
        <p className="preview-frame__captions">
          <span>{captions[0]}</span>
          <span>{captions[1]}</span>
        </p>
      )}
      <div className={`preview-frame${className ? ` ${className}` : ''}`}>
        <iframe sandbox="" title={title} src={src} name={name} />
      </div>
    </div>
  );
}
