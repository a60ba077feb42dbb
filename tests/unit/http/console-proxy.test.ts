import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proxyToConsole } from '../../../server/http/console-proxy';

/**
 * http/console-proxy.ts between a listener (the REST thread's) and a server on a Unix socket (the
 * console thread's): what the console sends arrives as sent, streamed; what belongs to one hop
 * stays on it; a console that is not there is a 503 in the contract's shape.
 */
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

async function pair(console: (req: IncomingMessage, res: ServerResponse) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), 'proxy-test-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const socketPath = path.join(dir, 'console.sock');
  const upstream = http.createServer(console);
  await new Promise<void>((resolve) => upstream.listen(socketPath, resolve));
  cleanup.push(() => closeServer(upstream));
  const toConsole = proxyToConsole(socketPath);
  const front = http.createServer((req, res) => void toConsole(req, res));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    toConsole.close();
    return closeServer(front);
  });
  return { port: (front.address() as AddressInfo).port, upstream, socketPath };
}

/** The raw head and body of one request written as `text`. */
function raw(port: number, text: string, untilBody?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (untilBody !== undefined && received.includes(untilBody)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe('the console proxy', () => {
  it('passes method, target, Host and end-to-end headers, and keeps hop-by-hop ones on their hop', async () => {
    let seen: IncomingMessage | undefined;
    let body = '';
    const { port } = await pair((req, res) => {
      seen = req;
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('x-console', 'yes');
        res.setHeader('keep-alive', 'timeout=99');
        res.end('done');
      });
    });
    const answer = await raw(
      port,
      [
        'POST /console/actions?x=1 HTTP/1.1',
        'Host: console.example:8443',
        'Cookie: session=s',
        'X-Forwarded-Proto: https',
        'Connection: keep-alive, X-Drop-Me',
        'X-Drop-Me: 1',
        'Keep-Alive: timeout=1',
        'TE: trailers',
        'Content-Length: 5',
        'Connection: close',
        '',
        'hello',
      ].join('\r\n'),
    );
    expect(seen!.method).toBe('POST');
    expect(seen!.url).toBe('/console/actions?x=1');
    expect(seen!.headers.host).toBe('console.example:8443');
    expect(seen!.headers.cookie).toBe('session=s');
    expect(seen!.headers['x-forwarded-proto']).toBe('https');
    expect(seen!.headers['x-drop-me']).toBeUndefined();
    expect(seen!.headers.te).toBeUndefined();
    expect(seen!.headers['keep-alive']).toBeUndefined();
    expect(body).toBe('hello');
    const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1; Path=/', 'set-cookie: b=2; Path=/']);
    expect(head).toMatch(/^x-console: yes$/im);
    expect(head).not.toMatch(/timeout=99/);
    expect(answer.endsWith('done')).toBe(true);
  });

  it('streams the answer: the first part arrives before the console has written the rest', async () => {
    let finish: (() => void) | undefined;
    const { port } = await pair((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<p>first part</p>');
      finish = () => res.end('<p>rest</p>');
    });
    const first = await raw(port, 'GET /console HTTP/1.1\r\nHost: x\r\n\r\n', 'first part');
    expect(first).toContain('<p>first part</p>');
    expect(first).not.toContain('rest');
    finish!();
  });

  it('sends the head before any of the body, so the console can refuse a body it has not read', async () => {
    const { port } = await pair((req, res) => {
      if (Number(req.headers['content-length']) > 1000) {
        res.writeHead(413, { connection: 'close' });
        res.end('too large');
      }
    });
    const answer = await raw(
      port,
      'POST /console/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n',
      'too large',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('tells the console when the client goes away before its answer', async () => {
    let aborted: Promise<void> | undefined;
    const { port } = await pair((req, res) => {
      aborted = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200);
      res.write('started');
    });
    await raw(port, 'GET /console/slow HTTP/1.1\r\nHost: x\r\n\r\n', 'started');
    await expect(aborted).resolves.toBeUndefined();
  });

  it('answers 503 service_unavailable, as JSON, when nothing listens on the socket', async () => {
    const { port, upstream } = await pair((_req, res) => res.end('never'));
    await closeServer(upstream);
    const res = await fetch(`http://127.0.0.1:${port}/console`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ code: 'service_unavailable' });
  });
});
