/**
 * Helpers for the media integration tests: image files made with sharp, a counting HTTP server
 * on 127.0.0.1 (the only address these tests ever hand to the service), and extra service
 * instances that share the global service's database (so `newAccount()` works for them too).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pg from 'pg';
import sharp from 'sharp';
import { sharedDatabaseUrl } from '../support/shared-database';
import { checkResponse } from '../support/conformance';
import { startService, type RunningService } from '../support/service';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MEDIA_KEYS = ['byte_size', 'height', 'id', 'kind', 'mime_type', 'poster_url', 'status', 'url', 'width'];

/** A PNG of one colour; different colours give different bytes (and different stored files). */
export function solidPng(width: number, height: number, r = 200, g = 10, b = 10): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();
}

export async function animated(format: 'gif' | 'webp', frames = 2): Promise<Buffer> {
  const parts = await Promise.all(
    Array.from({ length: frames }, (_, i) => solidPng(16, 16, i * 120, 40, 200 - i * 80)),
  );
  const joined = sharp(parts, { join: { animated: true } });
  return format === 'gif'
    ? joined.gif({ loop: 0, delay: parts.map(() => 100) }).toBuffer()
    : joined.webp({ loop: 0 }).toBuffer();
}

/** Random pixels barely compress: a PNG of about `mib` MiB that is a real, decodable image. */
export function noisePng(mib: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt((mib * 1024 * 1024) / 3));
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i += 4) pixels.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

export function mediaForm(bytes: Uint8Array, name = 'image.png', type = 'image/png', field = 'file'): FormData {
  const form = new FormData();
  form.set(field, new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
}

// ---- A counting file server on 127.0.0.1 ---------------------------------------------------

export type Route =
  | { type?: string; body: Buffer | string; delayMs?: number; status?: number; headers?: Record<string, string> }
  | { redirect: string; status?: number };

export interface FileServer {
  origin: string;
  port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Requests per path. */
  hits: Record<string, number>;
  routes: Record<string, Route>;
  url(path: string): string;
  close(): Promise<void>;
}

export async function startFileServer(routes: Record<string, Route> = {}): Promise<FileServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const hits: Record<string, number> = {};
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits[path] = (hits[path] ?? 0) + 1;
    const route = routes[path];
    if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    if ('redirect' in route) return void res.writeHead(route.status ?? 302, { location: route.redirect }).end();
    const send = () => {
      const body = typeof route.body === 'string' ? Buffer.from(route.body) : route.body;
      res.writeHead(route.status ?? 200, {
        'content-type': route.type ?? 'application/octet-stream',
        'content-length': body.length,
        ...route.headers,
      });
      res.end(body);
    };
    if (route.delayMs) setTimeout(send, route.delayMs);
    else send();
  };
  const server = createServer(handle);
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    get connections() {
      return connections;
    },
    hits,
    routes,
    url: (path: string) => `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- Extra service instances ---------------------------------------------------------------

/** URL of the global service's embedded PostgreSQL (already running: this only reads its port). */

export interface ExtraService {
  service: RunningService;
  call(
    method: string,
    path: string,
    opts?: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  stop(): Promise<unknown>;
}

/** Another instance of the service with its own env, on the shared database. */
export async function startExtraService(env: Record<string, string | undefined>): Promise<ExtraService> {
  const service = await startService({ DATABASE_URL: await sharedDatabaseUrl(), LOG_LEVEL: 'silent', ...env });
  return {
    service,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body = opts.body;
      if (opts.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.json);
      }
      const res = await fetch(`${service.baseUrl}/api/v1/author${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      await checkResponse({ method, path, status: res.status, headers: res.headers, text });
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    stop: () => service.stop(),
  };
}

/** Direct SQL on the shared database, for facts the API does not show (rows left behind). */
export async function countMediaRows(accountId: string): Promise<number> {
  const client = new pg.Client({ connectionString: await sharedDatabaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM media WHERE account_id = $1', [
      accountId,
    ]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database on the shared server (named for the test), for a test that counts rows
 * other tests would also write: an extra service started on it migrates it and has it alone.
 */
export async function freshDatabaseUrl(name: string): Promise<string> {
  const shared = new URL(await sharedDatabaseUrl());
  const database = `${name}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`.toLowerCase();
  const client = new pg.Client({ connectionString: shared.href });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  shared.pathname = `/${database}`;
  return shared.href;
}
