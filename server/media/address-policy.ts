/**
 * Which IP addresses the outbound image fetcher may connect to (the SSRF guard: author-supplied
 * URLs must not reach this machine or its private networks).
 *
 * Default-deny for everything that is not ordinary global unicast: the tables below follow
 * the IANA special-purpose registries, each row with the reason we report. Addresses that
 * embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are unwrapped and the
 * embedded address is judged too, because that is where the packet really goes.
 *
 * The allow list (env ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS) is passed in, never
 * read from env here, so tests and intranets decide per call. Cloud-metadata endpoints stay
 * forbidden even when an allowed CIDR covers them: no intranet use case needs an image from the
 * instance's credentials API.
 *
 * Ports: a public address is contacted on 80 and 443 only (plus the ports an operator adds), so
 * the fetcher cannot be used to probe or talk to other services of public hosts; an address the
 * operator admitted explicitly may use any port (tests, intranet image servers).
 */
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Addr, number];

/** What outbound fetches may reach beyond public addresses on the default ports. */
export interface AllowList {
  /** ALLOWED_PRIVATE_ADDRESSES: ranges reachable although not public, on any port. */
  readonly ranges: readonly Cidr[];
  /** Ports a public address may be contacted on: 80, 443 and ALLOWED_OUTBOUND_PORTS. */
  readonly publicPorts: ReadonlySet<number>;
}

export type AddressVerdict =
  | { allowed: true; address: string; /** Admitted by the allow list rather than as public. */ allowListed: boolean }
  | { allowed: false; address: string; reason: string };

const DEFAULT_PORTS = [80, 443];

/** Public addresses on ports 80 and 443, nothing private. */
export const PUBLIC_ONLY: AllowList = { ranges: [], publicPorts: new Set(DEFAULT_PORTS) };

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text) as Cidr;
const rows = (table: ReadonlyArray<readonly [string, string]>) =>
  table.map(([range, reason]) => ({ range: cidr(range), reason }));

// Metadata services of the big clouds. Listed before the generic ranges so the reason is precise,
// and consulted before the allow list (see header).
const METADATA = rows([
  ['169.254.169.254/32', 'cloud metadata service'],
  ['169.254.170.2/32', 'cloud metadata service (ECS credentials)'],
  ['169.254.170.23/32', 'cloud metadata service (EKS pod identity)'],
  ['100.100.100.200/32', 'cloud metadata service (Alibaba)'],
  ['192.0.0.192/32', 'cloud metadata service (Oracle)'],
  ['fd00:ec2::254/128', 'cloud metadata service (AWS IPv6)'],
  ['fd00:ec2::23/128', 'cloud metadata service (EKS pod identity IPv6)'],
]);

// IANA IPv4 Special-Purpose Address Registry, minus the few blocks marked "globally reachable".
const IPV4_DENY = rows([
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved (6to4 relay anycast)'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

// IANA IPv6 Special-Purpose Address Registry. Forms carrying IPv4 are handled in checkV6 first.
const IPV6_DENY = rows([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0:0/96', 'reserved (IPv4-translated)'],
  ['64:ff9b:1::/48', 'reserved (local-use NAT64)'],
  ['100::/64', 'reserved (discard-only)'],
  ['2001::/32', 'reserved (Teredo tunnel)'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved (SRv6 SIDs)'],
  ['fc00::/7', 'private (unique local)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'reserved (site-local)'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST_V6 = cidr('2000::/3');
const IPV4_COMPATIBLE = cidr('::/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');

const matches = (addr: Addr, [range, bits]: Cidr) => addr.kind() === range.kind() && addr.match(range, bits);

/**
 * Parses ALLOWED_PRIVATE_ADDRESSES (comma-separated CIDRs, a bare address meaning a single host)
 * and ALLOWED_OUTBOUND_PORTS (comma-separated ports added to 80 and 443). Throws on a malformed
 * entry, naming it: a typo must fail at startup, not silently allow nothing or something else.
 */
export function parseAllowList(addresses: string | undefined | null, ports?: string | null): AllowList {
  return {
    ranges: entries(addresses).map(parseRange),
    publicPorts: new Set([...DEFAULT_PORTS, ...entries(ports).map(parsePort)]),
  };
}

const entries = (spec: string | undefined | null) =>
  (spec ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/**
 * Only canonical spellings (net.isIP decides before ipaddr.js sees the text): ipaddr.js and
 * inet_aton would read "10.1", "017700000001" or "192.168.1.010" as some address, and which one
 * is exactly the ambiguity an allow list must not have.
 */
function parseRange(part: string): Cidr {
  const [address, bits, ...rest] = part.split('/');
  // A zone (fe80::1%eth0) names an interface, not a range: refused like any other odd spelling.
  const family = address.includes('%') ? 0 : isIP(address);
  const maxBits = family === 6 ? 128 : 32;
  const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
  if (family === 0 || rest.length > 0 || !bitsOk) {
    throw new Error(`ALLOWED_PRIVATE_ADDRESSES: "${part}" is not a canonical IP address or CIDR`);
  }
  return [ipaddr.parse(address) as Addr, bits === undefined ? maxBits : Number(bits)];
}

function parsePort(part: string): number {
  const port = /^\d{1,5}$/.test(part) ? Number(part) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error(`ALLOWED_OUTBOUND_PORTS: "${part}" is not a port (1-65535)`);
  return port;
}

/** The IPv4 address an IPv6 address really reaches or embeds, if any. */
function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = addr.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address();
  if (matches(addr, NAT64) || matches(addr, IPV4_COMPATIBLE)) return v4(p[6], p[7]);
  if (matches(addr, SIX_TO_FOUR)) return v4(p[1], p[2]);
  return null;
}

function denyReason(addr: Addr): string | null {
  if (addr.kind() === 'ipv4') {
    return IPV4_DENY.find((row) => matches(addr, row.range))?.reason ?? null;
  }
  const v6 = addr as ipaddr.IPv6;
  const reason = IPV6_DENY.find((row) => matches(v6, row.range))?.reason;
  if (reason) return reason;
  const inner = embeddedV4(v6);
  if (inner) {
    const innerReason = denyReason(inner);
    if (innerReason) return `${innerReason} (embedded IPv4 ${inner.toString()})`;
    // ::a.b.c.d is deprecated and not routed: connecting to it never reaches a.b.c.d legitimately.
    if (matches(v6, IPV4_COMPATIBLE)) return 'reserved (IPv4-compatible IPv6)';
    return null;
  }
  return matches(v6, GLOBAL_UNICAST_V6) ? null : 'reserved (not global unicast)';
}

function metadataReason(addr: Addr): string | null {
  const candidates: Addr[] = [addr];
  if (addr.kind() === 'ipv6') {
    const inner = embeddedV4(addr as ipaddr.IPv6);
    if (inner) candidates.push(inner);
  }
  for (const candidate of candidates) {
    const hit = METADATA.find((row) => matches(candidate, row.range));
    if (hit) return hit.reason;
  }
  return null;
}

function isAllowListed(addr: Addr, allow: AllowList): boolean {
  if (allow.ranges.some((range) => matches(addr, range))) return true;
  const inner = addr.kind() === 'ipv6' ? embeddedV4(addr as ipaddr.IPv6) : null;
  return inner !== null && allow.ranges.some((range) => matches(inner, range));
}

/**
 * ipaddr.js reads any IPv6 text ending in a dotted quad as IPv4-mapped ("::8.8.8.8" becomes
 * ::ffff:8.8.8.8), which would misjudge IPv4-compatible and NAT64 spellings; hex it first.
 */
function dottedTailToHex(text: string): string {
  return text.replace(/:(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_m, a, b, c, d, zone = '') => {
    const hex = (hi: string, lo: string) => ((Number(hi) << 8) | Number(lo)).toString(16);
    return `:${hex(a, b)}:${hex(c, d)}${zone}`;
  });
}

/**
 * Decides whether `ip` (a literal address, as returned by DNS or a WHATWG-canonical URL host,
 * IPv6 with or without brackets or zone) may be contacted.
 */
export function checkAddress(ip: string, allow: AllowList = PUBLIC_ONLY): AddressVerdict {
  const literal = ip.replace(/^\[(.*)\]$/, '$1');
  // Only strict textual forms: ipaddr.js alone would also accept "0x7f.1" style IPv4 spellings,
  // which must have been canonicalized by the URL parser before reaching this point.
  if (isIP(literal.replace(/%.*$/, '')) === 0) {
    return { allowed: false, address: literal, reason: 'not an IP address' };
  }
  const addr = ipaddr.parse(dottedTailToHex(literal)) as Addr;
  const address = addr.toString();
  const metadata = metadataReason(addr);
  if (metadata) return { allowed: false, address, reason: metadata };
  if (isAllowListed(addr, allow)) return { allowed: true, address, allowListed: true };
  const reason = denyReason(addr);
  if (reason === null) return { allowed: true, address, allowListed: false };
  return { allowed: false, address, reason };
}

/** checkAddress, plus the port rule: public addresses on the allowed ports only. */
export function checkDestination(ip: string, port: number, allow: AllowList = PUBLIC_ONLY): AddressVerdict {
  const verdict = checkAddress(ip, allow);
  if (!verdict.allowed || verdict.allowListed || allow.publicPorts.has(port)) return verdict;
  return { allowed: false, address: verdict.address, reason: `port ${port} is not allowed for a public address` };
}

export const isAddressAllowed = (ip: string, allow: AllowList = PUBLIC_ONLY) => checkAddress(ip, allow).allowed;
