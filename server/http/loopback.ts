import type { IncomingHttpHeaders } from 'node:http';
import ipaddr from 'ipaddr.js';

/**
 * Headers a reverse proxy adds when it relays a request. A proxy on the same machine connects
 * from loopback too, so a loopback peer alone does not mean "a local operator".
 */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via'];

/** True for a connection from this machine (127.0.0.0/8, ::1, ::ffff:127.x) that no proxy relayed. */
export function isDirectLoopback(remoteAddress: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (!remoteAddress || !ipaddr.isValid(remoteAddress)) return false;
  const address = ipaddr.process(remoteAddress);
  if (address.range() !== 'loopback') return false;
  return FORWARDING_HEADERS.every((name) => headers[name] === undefined);
}
