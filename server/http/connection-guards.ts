import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connectionSource, sameAddress } from '../foundation/client-network';
import { logLine } from '../foundation/log';
import { isUnderRateFloor } from './body-rate';

/**
 * What the listening server does about connections before any request is routed: a request it
 * could not read or that ran out of time, and one client holding too many connections. The
 * timeouts themselves are the server's options (launcher.ts); the upload rate floor is
 * body-rate.ts. README, "Slow or abusive clients".
 */

/** Node's own answers to a request it could not read (what it writes when nobody listens for `clientError`). */
const CLIENT_ERROR_ANSWERS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * Node's default handling of a request it could not read or that ran out of time (an answer
 * without body if nothing was written yet, then the connection closed), with one exception: the
 * request timeout is not applied to an upload whose body is being read under its rate floor
 * (body-rate.ts), which ends a slow body without cutting a long, steady one. Node checks each
 * request once for its timeout: the upload is not looked at again.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isUnderRateFloor(socket)) return;
  const response = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const status = CLIENT_ERROR_ANSWERS[err.code ?? ''] ?? 400;
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`, 'ascii');
  }
  socket.destroy(err);
}

export interface ConnectionCap {
  /** Open connections one client network may hold (MAX_CONNECTIONS_PER_ADDRESS). */
  cap: number;
  /** TRUSTED_PROXIES: comma-separated addresses that are not capped. */
  trustedProxies: string;
  /** The IPv6 prefix one client controls (READER_IPV6_PREFIX): its addresses count together. */
  ipv6Prefix: number;
}

/**
 * At most `cap` open connections per client network (connectionSource: an IPv4 address, an
 * IPv6 /64, each loopback address by itself); more are closed as they arrive, as past
 * MAX_CONNECTIONS (no request has been read: there is nothing to answer). The TRUSTED_PROXIES
 * addresses are not capped: behind a reverse proxy every connection comes from it, and
 * per-client limits belong there. A notice says how many were closed, at most once a minute
 * (without the address).
 */
export function capConnectionsPerAddress(
  server: http.Server,
  { cap, trustedProxies, ipv6Prefix }: ConnectionCap,
): void {
  const exempt = new Set(
    trustedProxies
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .map(sameAddress),
  );
  const open = new Map<string, number>();
  let closed = 0;
  let lastNotice = -Infinity;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || exempt.has(sameAddress(address))) return;
    const key = connectionSource(address, ipv6Prefix);
    const count = (open.get(key) ?? 0) + 1;
    if (count > cap) {
      socket.destroy();
      closed++;
      if (performance.now() - lastNotice >= 60_000) {
        lastNotice = performance.now();
        logLine({
          level: 'notice',
          msg: `closed ${closed} connection(s) from addresses already holding MAX_CONNECTIONS_PER_ADDRESS (${cap}); a reverse proxy in front of this service belongs in TRUSTED_PROXIES`,
        });
        closed = 0;
      }
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
