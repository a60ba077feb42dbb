/**
 * URL facts shared by the trusted post-plugins and the services: the one spelling of a stored
 * file's address, where the reader beacons are answered, absolute http(s) URLs, and which of
 * them point back at this service. They never pass user strings through unparsed.
 */
import { UUID_SOURCE } from '../foundation/uuid';

const MEDIA_PATH = new RegExp(`^/api/media/(${UUID_SOURCE})$`);

/** The uuid of a stored media path `/api/media/<uuid>` (images, the GIF island), else undefined. */
export function localMediaUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = MEDIA_PATH.exec(value);
  return match ? match[1]!.toLowerCase() : undefined;
}

/** A stored file's address, as it appears in html, covers and Media objects. */
export function localMediaPath(uuid: string): string {
  return `/api/media/${uuid}`;
}

/**
 * An absolute http(s) URL in canonical WHATWG form, else undefined.
 * Protocol-relative `//host/x` becomes `https://host/x` (the sanitizer sees no scheme in it and
 * lets it through, so it is resolved here).
 * Canonical form keeps the round trip stable: serializing `URL.href` and parsing it again is a fixpoint.
 */
export function absoluteHttpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const candidate = ipv6HostUnescaped(value.startsWith('//') ? `https:${value}` : value);
  if (!/^https?:\/\//i.test(candidate)) return undefined;
  try {
    const url = new URL(candidate);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (!url.hostname) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * Markdown destinations reach the tree percent-encoded (mdast-util-to-hast `normalizeUri`), which
 * turns the brackets of an IPv6 literal host into `%5B…%5D`: `http://[::1]:9/x.png` would no
 * longer parse as a URL and the image would vanish. Brackets are restored in the authority only
 * (a `%5B` in a path or query is data and stays escaped).
 */
function ipv6HostUnescaped(url: string): string {
  const match = /^(https?:\/\/)([^/?#]*)/i.exec(url);
  if (!match || !/%5b/i.test(match[2]!)) return url;
  const authority = match[2]!.replace(/%5b/gi, '[').replace(/%5d/gi, ']');
  return match[1] + authority + url.slice(match[0].length);
}

/** Where the reader beacons are answered (server/http/reader-beacon.ts, server/public/reader-beacons.ts). */
export const READER_BEACON_PREFIX = '/api/reader/';

/**
 * Whether an absolute image address points back at this service outside its stored files: on
 * one of `selfOrigins` (PUBLIC_ORIGIN: the public pages' own origin, whose `img-src 'self'` lets
 * it load) anything but `/api/media/<uuid>`, and on any host a reader beacon path (the origin
 * may be unset, or reached under another name). An article body must never show such an image:
 * every reader of the page would count for the article its address names. The path is compared
 * with unreserved percent-escapes decoded and case folded, so another spelling does not slip by.
 */
export function pointsAtServiceOutsideMedia(absolute: string, selfOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(absolute);
  } catch {
    return false;
  }
  const path = url.pathname
    .replace(/%([0-9a-f]{2})/gi, (escape, hex: string) => {
      const char = String.fromCharCode(parseInt(hex, 16));
      return /[A-Za-z0-9\-._~/]/.test(char) ? char : escape;
    })
    .toLowerCase();
  if (path.startsWith(READER_BEACON_PREFIX)) return true;
  return selfOrigins.includes(url.origin) && localMediaUuid(url.pathname) === undefined;
}
