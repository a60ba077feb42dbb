/**
 * MAX_CONNECTIONS_PER_ADDRESS on raw sockets, with a cap of 3: a fourth open connection from one
 * address is closed without an answer while its first three are served; other addresses have
 * their own count (127.0.0.x here: the whole 127/8 reaches a service bound to 127.0.0.1); a
 * TRUSTED_PROXIES address (127.0.0.2) is not capped, since behind a proxy every client comes
 * from it; and once one of the three closes, the address may open another.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraService, type ExtraService } from './media-helpers';
import { API_ONLY } from '../support/service';

const CAP = 3;
/** The capped client. Not 127.0.0.1: the instance's own warm-up requests at start come from there. */
const CLIENT = '127.0.0.5';
const OTHER = '127.0.0.6';

/** A connection from `localAddress`, kept open: one request answered, then a second one kept coming. */
interface Held {
  socket: Socket;
  firstAnswer: string;
}

function open(base: string, localAddress: string): Promise<Held> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    let received = '';
    const onClose = () => reject(new Error(`closed from ${localAddress} before an answer`));
    socket.on('error', reject);
    socket.on('close', onClose);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      if (end === -1 || length === undefined || received.length < end + 4 + Number(length)) return;
      socket.off('close', onClose);
      socket.removeAllListeners('data');
      // The next request's first line: the connection is in a request again (not idle), and
      // one more header line a second keeps it from the keep-alive timeout.
      socket.write(`GET /api/health HTTP/1.1\r\nHost: ${hostname}\r\n`);
      const hold = setInterval(() => socket.write('X-Hold: 1\r\n'), 1_000);
      socket.on('close', () => clearInterval(hold));
      resolve({ socket, firstAnswer: received });
    });
    socket.write(`GET /api/health HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
}

/** One request from `localAddress` with `Connection: close`: what came back before the close ('' if nothing). */
function once(base: string, localAddress: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    // A connection closed as it arrives may be reset while the request is written.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(`GET /api/health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
  });
}

describe('MAX_CONNECTIONS_PER_ADDRESS', () => {
  let extra: ExtraService;
  const held: Held[] = [];
  beforeAll(async () => {
    extra = await startExtraService({
      ...API_ONLY,
      MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
      TRUSTED_PROXIES: '127.0.0.2',
    });
  });
  afterAll(async () => {
    for (const h of held) h.socket.destroy();
    await extra?.stop();
  });

  it('closes the connections one address opens past the cap, unanswered, and serves the others', async () => {
    const base = extra.service.baseUrl;
    for (let i = 0; i < CAP; i++) held.push(await open(base, CLIENT));
    for (const h of held) expect(h.firstAnswer).toMatch(/^HTTP\/1\.1 200 /);

    // The fourth from CLIENT: closed as it arrives, nothing written back.
    expect(await once(base, CLIENT)).toBe('');
    expect(await once(base, CLIENT)).toBe('');

    // Another address has a count of its own.
    expect(await once(base, OTHER)).toMatch(/^HTTP\/1\.1 200 /);

    // The trusted proxy is not capped: more than CAP at once from it are all served.
    const proxied = await Promise.all(Array.from({ length: CAP + 3 }, () => open(base, '127.0.0.2')));
    held.push(...proxied);
    for (const h of proxied) expect(h.firstAnswer).toMatch(/^HTTP\/1\.1 200 /);

    // One of the client's connections closes: it may open another.
    const first = held.shift()!;
    await new Promise<void>((resolve) => {
      first.socket.once('close', () => resolve());
      first.socket.destroy();
    });
    // The service sees the close a moment after the client.
    await new Promise((r) => setTimeout(r, 200));
    expect(await once(base, CLIENT)).toMatch(/^HTTP\/1\.1 200 /);

    // The operator is told, without the address.
    expect(extra.service.logs.join('')).toMatch(/"level":"notice","msg":"closed \d+ connection\(s\) from addresses/);
  });
});
