import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Who a client is, as far as its address tells: the one home of the rules that decide when two
 * addresses are one client. Used by the reader share (one network adds at most so many readers)
 * and the connection cap (one network holds at most so many connections), for a peer and for an
 * address a trusted proxy forwarded alike.
 *
 * Only canonical spellings are read as addresses (net.isIP decides before ipaddr.js sees the
 * text): ipaddr.js would read "10.1" or "017700000001" as some IPv4 address, and a client must
 * not pick which one.
 */

/** The one key every loopback spelling (127.0.0.0/8, `::1`, `::ffff:127.0.0.1`) stands for. */
export const LOOPBACK_NETWORK = 'loopback';

/** The prefix a client is normally handed in IPv6 (RFC 6177), and may send from any address of. */
const DEFAULT_IPV6_PREFIX = 64;

/**
 * The network a client address stands for: what one client controls, so every address it can
 * send from is one client.
 * - IPv4: the address itself (one address is often a household or an office behind NAT).
 * - IPv4 written as IPv6 (`::ffff:a.b.c.d`, and the NAT64 well-known prefix `64:ff9b::/96`
 *   through which an IPv6-only front end sees IPv4 clients): that IPv4 address.
 * - Loopback (127.0.0.0/8, `::1`, in any spelling): this machine, one key.
 * - Any other IPv6 address: its first `ipv6Prefix` bits (READER_IPV6_PREFIX, 64 by default).
 * A zone (`fe80::1%eth0`) is dropped. Anything that is not an IP address is returned as it
 * came, so a network key given again is itself (`clientNetwork(clientNetwork(a)) === clientNetwork(a)`).
 */
export function clientNetwork(address: string, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  const parsed = parseAddress(address);
  if (parsed === undefined) return address;
  if (parsed.range() === 'loopback') return LOOPBACK_NETWORK;
  return networkOf(parsed, ipv6Prefix);
}

/**
 * The source a connection counts against in the per-address connection cap: `clientNetwork`,
 * except that each loopback address is its own. Loopback peers are this machine's own
 * processes (a local proxy, a health checker, the instance's warm-up): they are not one
 * reader, and one of them must not shut the others out.
 */
export function connectionSource(address: string, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  const parsed = parseAddress(address);
  if (parsed === undefined) return address;
  if (parsed.range() === 'loopback') return parsed.toString();
  return networkOf(parsed, ipv6Prefix);
}

function networkOf(parsed: ipaddr.IPv4 | ipaddr.IPv6, ipv6Prefix: number): string {
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  const bits = Math.min(128, Math.max(0, Math.trunc(ipv6Prefix)));
  const masked = v6.parts.map((part, i) => {
    const kept = Math.min(16, Math.max(0, bits - i * 16));
    return kept === 0 ? 0 : part & (0xffff << (16 - kept)) & 0xffff;
  });
  return `${masked.map((part) => part.toString(16)).join(':')}/${bits}`;
}

/**
 * One spelling of an address, to compare two exactly (a proxy list against a peer): an IPv4
 * address written as IPv6 as that IPv4 address, IPv6 in its shortest lower-case form, the zone
 * dropped; anything that is not an IP address as it came.
 */
export function sameAddress(address: string): string {
  return parseAddress(address)?.toString() ?? address;
}

/** `address` read as IPv4 when it is IPv4 in any IPv6 dress (mapped or NAT64), undefined when not an address. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const text = address.trim();
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  const family = isIP(bare);
  if (family === 0) return undefined;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.range() === 'rfc6052') return new ipaddr.IPv4(v6.toByteArray().slice(12));
  return v6;
}
