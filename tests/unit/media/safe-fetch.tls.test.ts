/**
 * HTTPS through the pinned connector: the socket goes to the vetted address while SNI and the
 * certificate check still use the URL's host name, and certificate verification stays on.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createSecureContext, createServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../../server/media/address-policy';
import { FetchError, safeFetch } from '../../../server/media/safe-fetch';

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));
const context = createSecureContext({ key: fixture('test-tls.key'), cert: fixture('test-tls.crt') });
const sni: string[] = [];
const server = createServer(
  {
    key: fixture('test-tls.key'),
    cert: fixture('test-tls.crt'),
    // Called with the ClientHello's server name, before the client judges the certificate.
    SNICallback: (servername, callback) => {
      sni.push(servername);
      callback(null, context);
    },
  },
  (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'),
);
server.on('tlsClientError', () => undefined);
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('safeFetch over TLS', () => {
  it('sends the URL host as SNI to the pinned address and refuses an untrusted certificate', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const err = await safeFetch(`https://images.test:${port}/a.png`, {
      allowList: parseAllowList('127.0.0.0/8'),
      log: (fields) => logged.push(fields),
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(sni).toEqual(['images.test']);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).problem).toBe('network');
    // The certificate problem is logged; the author only learns that the fetch failed.
    expect((err as FetchError).message).toBe('url: could not fetch the image');
    expect(JSON.stringify(logged)).toMatch(/SELF_SIGNED|DEPTH_ZERO/);
  });
});
