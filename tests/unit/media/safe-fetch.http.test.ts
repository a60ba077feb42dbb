/**
 * safeFetch against real HTTP servers on 127.0.0.1 (the only address tests contact). Host names
 * are answered by a stub resolver that points at 127.0.0.1, so the real DNS is never asked.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../../server/media/address-policy';
import { undiciConnector } from '../../../server/media/fetch/undici-connector';
import { FetchError, safeFetch, type Connector, type Resolver } from '../../../server/media/safe-fetch';
import { startLocalServer, type LocalServer } from './helpers/local-server';

const LOOPBACK = parseAllowList('127.0.0.0/8');
const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const servers: LocalServer[] = [];

async function serve(handler: Parameters<typeof startLocalServer>[0]) {
  const server = await startLocalServer(handler);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

const png = Buffer.from('89504e470d0a1a0a', 'hex');

describe('safeFetch over HTTP on 127.0.0.1', () => {
  it('downloads only when 127.0.0.0/8 is allowed, and makes no connection otherwise', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));

    const refused = await failure(safeFetch(`${server.origin}/a.png`));
    expect(refused.problem).toBe('forbidden_address');
    expect(refused.message).toBe('url: address not allowed');
    expect(server.connections).toBe(0);

    const result = await safeFetch(`${server.origin}/a.png`, { allowList: LOOPBACK });
    expect(result.buffer.equals(png)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.finalUrl).toBe(`${server.origin}/a.png`);
    expect(server.connections).toBe(1);
  });

  it('pins the vetted address while keeping the Host header of the URL', async () => {
    const server = await serve((req, res) => res.end(req.headers.host));
    const result = await safeFetch(`http://images.test:${server.port}/x`, {
      allowList: LOOPBACK,
      resolver: toLoopback,
    });
    expect(result.buffer.toString()).toBe(`images.test:${server.port}`);
  });

  it('follows redirects, re-checking every hop', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/start') return res.writeHead(302, { location: '/middle' }).end();
      if (req.url === '/middle') return res.writeHead(301, { location: `http://cdn.test:${server.port}/final` }).end();
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    const result = await safeFetch(`${server.origin}/start`, { allowList: LOOPBACK, resolver: toLoopback });
    expect(result.finalUrl).toBe(`http://cdn.test:${server.port}/final`);
    expect(server.requests.map((r) => r.url)).toEqual(['/start', '/middle', '/final']);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://[::ffff:192.168.0.1]/',
    'http://2852039166/',
    'http://localhost/',
  ])('refuses a redirect to %s at that hop, dialing nothing but the first server', async (location) => {
    const server = await serve((_req, res) => res.writeHead(307, { location }).end());
    const dialed: string[] = [];
    const connector: Connector = (hop) => {
      dialed.push(hop.address);
      return undiciConnector(hop);
    };
    const allowList = parseAllowList('127.0.0.1/32');
    const err = await failure(safeFetch(`${server.origin}/img`, { allowList, connector }));
    expect(err.problem).toBe('forbidden_address');
    expect(dialed).toEqual(['127.0.0.1']);
  });

  it('stops after 5 redirects', async () => {
    const server = await serve((req, res) => res.writeHead(302, { location: `/r${req.url}` }).end());
    const err = await failure(safeFetch(`${server.origin}/`, { allowList: LOOPBACK }));
    expect(err.problem).toBe('too_many_redirects');
    expect(server.requests).toHaveLength(6);
  });

  it('reports an upstream error status', async () => {
    const server = await serve((_req, res) => res.writeHead(404).end('nope'));
    const err = await failure(safeFetch(`${server.origin}/missing.png`, { allowList: LOOPBACK }));
    expect(err.problem).toBe('http_status');
    expect(err.httpStatus).toBe(404);
  });

  describe('byte cap', () => {
    const big = Buffer.alloc(256 * 1024, 7);

    it('refuses a declared Content-Length over the cap without reading the body', async () => {
      const server = await serve((_req, res) => res.writeHead(200, { 'content-length': big.length }).end(big));
      const err = await failure(safeFetch(`${server.origin}/big`, { allowList: LOOPBACK, maxBytes: 100_000 }));
      expect(err.problem).toBe('too_large');
    });

    it('stops reading a chunked body at the first byte past the cap', async () => {
      let written = 0;
      let closed = false;
      const server = await serve((_req, res) => {
        res.on('close', () => (closed = true));
        const pump = () => {
          while (!closed && written < 64 * 1024 * 1024) {
            written += 64 * 1024;
            if (!res.write(Buffer.alloc(64 * 1024))) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      });
      const err = await failure(safeFetch(`${server.origin}/endless`, { allowList: LOOPBACK, maxBytes: 1024 * 1024 }));
      expect(err.problem).toBe('too_large');
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(true);
      expect(written).toBeLessThan(64 * 1024 * 1024);
    });

    it('accepts a body exactly at the cap', async () => {
      const server = await serve((_req, res) => res.end(big));
      const result = await safeFetch(`${server.origin}/exact`, { allowList: LOOPBACK, maxBytes: big.length });
      expect(result.buffer.length).toBe(big.length);
    });
  });

  describe('timeouts', () => {
    const hang: Array<ServerResponse> = [];
    afterEach(() => {
      for (const res of hang.splice(0)) res.destroy();
    });

    it('times out waiting for response headers', async () => {
      const server = await serve((_req, res) => void hang.push(res));
      const err = await failure(safeFetch(`${server.origin}/slow`, { allowList: LOOPBACK, readTimeoutMs: 150 }));
      expect(err.problem).toBe('timeout');
    });

    it('times out when the body stalls', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': 1000 }).write(Buffer.alloc(10));
        hang.push(res);
      });
      const err = await failure(safeFetch(`${server.origin}/stall`, { allowList: LOOPBACK, readTimeoutMs: 150 }));
      expect(err.problem).toBe('timeout');
    });

    it('enforces the total deadline against a slow trickle that never idles', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200);
        const timer = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(timer));
        hang.push(res);
      });
      const err = await failure(
        safeFetch(`${server.origin}/trickle`, { allowList: LOOPBACK, readTimeoutMs: 5_000, totalTimeoutMs: 300 }),
      );
      expect(err.problem).toBe('timeout');
    });
  });

  it('refuses the connection when the peer turns out not to be allowed', async () => {
    const server = await serve((_req, res) => res.end('secret'));
    const err = await undiciConnector({
      url: new URL(`${server.origin}/`),
      address: '127.0.0.1',
      family: 4,
      headers: {},
      signal: AbortSignal.timeout(5_000),
      connectTimeoutMs: 1_000,
      readTimeoutMs: 1_000,
      isPeerAllowed: () => false,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a refused connection as a network failure', async () => {
    const server = await serve((_req, res) => res.end());
    const { port } = server;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const err = await failure(safeFetch(`http://127.0.0.1:${port}/`, { allowList: LOOPBACK }));
    expect(err.problem).toBe('network');
  });
});
