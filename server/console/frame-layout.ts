/**
 * The space between the two readers' screens of a side-by-side frame, in CSS pixels: the frame's
 * document lays its columns out with it (side-by-side.ts), and the console gives the frame two
 * reader widths plus this gap (app/console/components/preview-frame.tsx), so each column is
 * exactly one reader's width. Its own module, so the console's browser code does not carry the
 * readers' stylesheet.
 */
export const SIDE_BY_SIDE_GAP_PX = 24;
