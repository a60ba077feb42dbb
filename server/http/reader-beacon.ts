import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { clientNetwork, sameAddress } from '../foundation/client-network';
import { env } from '../foundation/env';
import { readerBeacons } from '../foundation/metrics';
import type { AppParts } from '../runtime/parts';
import { READER_BEACON_PREFIX } from '../content/urls';
import { PUBLIC_ID_PATTERN } from '../services/posts/public-id';
import { isKnownBot, type ReaderKind } from '../services/readers/reader-tally';

/**
 * `GET /api/reader/{public_id}/{open|read|complete}.gif`: the images a public page embeds
 * (server/reader-pages/article-page.ts) so that a browser rendering and scrolling it counts, with no
 * script and whatever cache served the page. Answered from memory: the beacon goes into the
 * tally (server/services/readers/reader-tally.ts) and a flush writes it later, so a page view is never
 * a database write. Every well-formed beacon gets the same 1×1 GIF, counted or not, uncacheable
 * so each page view asks again.
 */
const BEACON_PATH = new RegExp(`^${READER_BEACON_PREFIX}([0-9a-z]{10})/(open|read|complete)\\.gif$`);

/** The smallest transparent GIF (1×1, 42 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function serveReaderBeacon(
  parts: Pick<AppParts, 'readers'>,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): void {
  const match = BEACON_PATH.exec(pathname);
  const method = req.method;
  if (!match || !PUBLIC_ID_PATTERN.test(match[1]!) || (method !== 'GET' && method !== 'HEAD')) {
    res.statusCode = 404;
    res.setHeader('cache-control', 'no-store');
    res.end();
    return;
  }
  const kind = match[2] as ReaderKind;
  if (method === 'GET' && looksLikeAReader(req, match[1]!)) {
    const outcome = parts.readers.record({
      address: clientNetwork(clientAddress(req), env.READER_IPV6_PREFIX),
      userAgent: req.headers['user-agent'] ?? '',
      publicId: match[1]!,
      kind,
      at: Date.now(),
    });
    readerBeacons.inc({ kind, outcome });
  } else {
    readerBeacons.inc({ kind, outcome: 'ignored' });
  }
  res.statusCode = 200;
  res.setHeader('content-type', 'image/gif');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', PIXEL.byteLength);
  res.end(method === 'HEAD' ? undefined : PIXEL);
}

/**
 * Not a reader: a known bot, a prefetch or prerender (the reader may never look at the page),
 * a request a browser did not make for an image in a page, or an image on another page than
 * the article's own: another site's (`Sec-Fetch-Site` says the page was not ours) or another
 * article's (its `Referer` path names another public id), so a beacon planted elsewhere counts
 * nothing. A request that sends neither header (privacy settings strip them) still counts.
 */
function looksLikeAReader(req: IncomingMessage, publicId: string): boolean {
  const h = req.headers;
  if (isKnownBot(h['user-agent'])) return false;
  const purpose = `${h['sec-purpose'] ?? ''} ${h['purpose'] ?? ''} ${h['x-moz'] ?? ''}`.toLowerCase();
  if (purpose.includes('prefetch') || purpose.includes('prerender')) return false;
  const dest = h['sec-fetch-dest'];
  if (typeof dest === 'string' && dest !== 'image') return false;
  const site = h['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  return refererAllows(h.referer, publicId);
}

/** A `Referer` naming an article page counts only for that article; any other (or none) is not held against the beacon. */
function refererAllows(referer: string | undefined, publicId: string): boolean {
  if (!referer) return true;
  let path: string;
  try {
    path = new URL(referer).pathname;
  } catch {
    return true;
  }
  const dash = path.lastIndexOf('-');
  const named = dash === -1 ? '' : path.slice(dash + 1);
  return !PUBLIC_ID_PATTERN.test(named) || named === publicId;
}

/**
 * The reader's address: the connection's peer, unless that peer is one of TRUSTED_PROXIES, in
 * which case the last X-Forwarded-For entry added by a proxy not in that list (an entry that is
 * not an IP address is not an address: the proxy's own is used). Addresses are compared in one
 * spelling (`sameAddress`): `::ffff:10.0.0.1` is `10.0.0.1`, `2001:DB8::1` is `2001:db8::1`.
 * The caller keys it by network (clientNetwork), the same for a peer and a forwarded entry. It
 * only ever goes into the day's hash; it is never stored.
 */
function clientAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? '';
  const trusted = trustedProxies();
  if (!trusted.has(sameAddress(peer))) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (trusted.has(sameAddress(hops[i]!))) continue;
    return isIP(hops[i]!) !== 0 ? hops[i]! : peer;
  }
  return hops[0] !== undefined && isIP(hops[0]) !== 0 ? hops[0] : peer;
}

let trusted: Set<string> | undefined;
function trustedProxies(): Set<string> {
  trusted ??= new Set(
    env.TRUSTED_PROXIES.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(sameAddress),
  );
  return trusted;
}
