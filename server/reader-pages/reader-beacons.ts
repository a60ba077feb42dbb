import { READER_BEACON_PREFIX } from '../content/urls';
import type { ReaderKind } from '../services/readers/reader-tally';

/** The beacon's path for an article and a kind (what the page embeds). */
function beaconPath(publicId: string, kind: ReaderKind): string {
  return `${READER_BEACON_PREFIX}${publicId}/${kind}.gif`;
}

/**
 * Reader counting without a script (docs/api.md "Reader counters"): three 1×1 images the
 * browser itself requests. `open` loads with the page; `read` and `complete` are lazy, and
 * Chromium starts a lazy image when it comes within its loading distance of the viewport
 * (measured in e2e/reader-counters.spec.ts: 1,250 px below the viewport's bottom edge on a
 * fast connection), not when it becomes visible. So the `read` image sits that distance below
 * the article's middle: it loads when the middle reaches the bottom of the screen; `complete`
 * cannot sit below the end of the page and loads when the reader is within that distance of
 * the article's end. The console's preview frames render the article without these images.
 */
const LAZY_LOAD_DISTANCE_PX = 1250;

export const BEACON_CSS =
  '.reader__counted{position:relative}' +
  '.reader__beacon{position:absolute;left:0;width:1px;height:1px;border:0;opacity:0;pointer-events:none}' +
  `.reader__beacon--read{top:min(calc(50% + ${LAZY_LOAD_DISTANCE_PX}px),calc(100% - 1px))}` +
  '.reader__beacon--complete{top:calc(100% - 1px)}';

export function readerBeacons(publicId: string): string {
  const img = (kind: ReaderKind, lazy: boolean) =>
    `<img class="reader__beacon reader__beacon--${kind}" src="${beaconPath(publicId, kind)}"${lazy ? ' loading="lazy"' : ''} width="1" height="1" alt="">`;
  return img('open', false) + img('read', true) + img('complete', true);
}
