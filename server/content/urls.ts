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

/** Where the reader beacons are answered (server/http/reader-beacon.ts, server/reader-pages/reader-beacons.ts). */
export const READER_BEACON_PREFIX = '/api/reader/';

/** Relative addresses are resolved against this base; its host stands for "this service". */
const RELATIVE_BASE = 'http://relative.invalid/';
const RELATIVE_HOST = 'relative.invalid';

/**
 * An address reduced to what decides whether it reaches this service, and where in it
 * (`serviceAddress`): the host as the service would be reached at it, the path as a lenient
 * server or proxy in front of it would route it.
 */
interface ServiceAddress {
  /**
   * Host name, case folded (IDNA, IPv4 in dotted form), without a trailing dot, every loopback
   * spelling (`127.x.y.z`, `[::1]`, `*.localhost`…) as `localhost`; null for a relative address.
   */
  host: string | null;
  /** The port it is reached on, the scheme's default filled in. */
  port: string;
  /** Whether `port` is the default of its scheme (http 80, https 443). */
  defaultPort: boolean;
  /**
   * The path percent-decoded (ASCII escapes, repeatedly: `%2572` is `r`), backslashes as
   * slashes, repeated slashes collapsed, dot segments resolved, lower case.
   */
  path: string;
  /** The path as the URL parser gives it (the strict reading, for the stored-file exception). */
  pathname: string;
}

const LOOPBACK_HOST =
  /^(?:localhost|.+\.localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/;

/**
 * The one reading of an image address (absolute, protocol-relative or relative, as written or
 * as the Markdown step percent-encoded it) that decides whether it points at this service:
 * every removal of such an address (the conversion's plugins, the cover, the console) goes
 * through `pointsAtServiceOutsideMedia`, which reads the address here. Undefined for what is
 * not an http(s) address at all (`data:`, `javascript:`, unparsable).
 */
export function serviceAddress(value: string): ServiceAddress | undefined {
  const candidate = ipv6HostUnescaped(value.startsWith('//') ? `http:${value}` : value);
  let url: URL;
  try {
    url = new URL(candidate, RELATIVE_BASE);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const schemePort = url.protocol === 'https:' ? '443' : '80';
  const name = url.hostname.replace(/\.$/, '');
  return {
    host: name === RELATIVE_HOST ? null : LOOPBACK_HOST.test(name) ? 'localhost' : name,
    port: url.port || schemePort,
    defaultPort: !url.port,
    path: routedPath(url.pathname),
    pathname: url.pathname,
  };
}

/** At most this many rounds of decoding: `%25` escapes within escapes are unwrapped that deep. */
const DECODING_ROUNDS = 4;

/**
 * A path as a lenient server or proxy would route it: ASCII escapes decoded (repeatedly), `\` as
 * `/`, repeated slashes collapsed, dot segments resolved, lower case. The reader beacons' route
 * answers only the canonical spelling, and refuses every other one that routes to it.
 */
export function routedPath(pathname: string): string {
  let path = pathname;
  for (let round = 0; round < DECODING_ROUNDS; round++) {
    const decoded = path.replace(/%([0-7][0-9a-f])/gi, (_escape, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    const next = withoutDotSegments(decoded.replace(/\\/g, '/').replace(/\/{2,}/g, '/')).toLowerCase();
    if (next === path) break;
    path = next;
  }
  return path;
}

/** A `.` or `..` segment, written out or percent-encoded (`%2e`): what the WHATWG parser resolves. */
export const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * RFC 3986 remove_dot_segments on an absolute `/`-separated path (never above the root), with a
 * segment read as a dot segment in its encoded spellings too (`%2e`, `.%2E`), as the WHATWG parser
 * reads it. The one rule both the request router (dot-segment redirects) and the beacon check use.
 */
export function withoutDotSegments(path: string): string {
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    if (DOT_SEGMENT.test(segment)) {
      if (segment.replace(/%2e/gi, '.') === '..') out.pop();
      if (last) out.push('');
    } else {
      out.push(segment);
    }
  }
  return `/${out.join('/')}`;
}

/** The same host, and the same port or each its scheme's default (http and https of one name). */
function sameHost(a: ServiceAddress, b: ServiceAddress): boolean {
  return a.host !== null && a.host === b.host && (a.port === b.port || (a.defaultPort && b.defaultPort));
}

/**
 * Whether an image address points back at this service outside its stored files: on one of
 * `selfOrigins` (PUBLIC_ORIGIN: the public pages' own origin, whose `img-src 'self'` lets it
 * load; compared by host in any spelling, loopback names alike) anything but
 * `/api/media/<uuid>`, and on any host, or relative, a reader beacon path (the origin may be
 * unset, or reached under another name). An article body must never show such an image: every
 * reader of the page would count for the article its address names. The address is read by
 * `serviceAddress`, so no other spelling of a beacon (`//api/reader/`, `/api//reader/`, dot
 * segments, escapes, upper case) slips by.
 */
export function pointsAtServiceOutsideMedia(address: string, selfOrigins: readonly string[]): boolean {
  const found = serviceAddress(address);
  if (!found) return false;
  if (found.path.startsWith(READER_BEACON_PREFIX)) return true;
  if (found.host === null || localMediaUuid(found.pathname) !== undefined) return false;
  return selfOrigins.some((origin) => {
    const self = serviceAddress(origin);
    return self !== undefined && sameHost(found, self);
  });
}
