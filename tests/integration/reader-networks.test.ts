/**
 * The reader share (READERS_PER_ADDRESS) is per client network, not per spelling of an address:
 * an IPv6 client's whole /64 (READER_IPV6_PREFIX), an IPv4 address however it is written
 * (`::ffff:a.b.c.d`), this machine under any loopback spelling; the same for a peer and for an
 * address a trusted proxy forwards. IPv4 addresses still count one by one.
 *
 * Two instances on the shared database: one behind a "proxy" (TRUSTED_PROXIES=127.0.0.1, the
 * test sends X-Forwarded-For), one listening on `::` (dual stack) with READER_IPV6_PREFIX=48,
 * reached as `127.0.0.1` (its peer is `::ffff:127.0.0.1`) and as `::1`. Every beacon has a user
 * agent of its own, so only the share limits what it adds. Both instances are stopped with
 * SIGTERM, which flushes what they hold, before the counts are read.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, createPost, newAccount } from '../support/api';
import { API_ONLY, ROOT, removeDataDir, tempDataDir } from '../support/service';
import { startExtraService, type ExtraService } from './media-helpers';
import { sharedDatabaseUrl } from '../support/shared-database';

/** READERS_PER_ADDRESS's default. */
const SHARE = 20;

let readerNumber = 0;
const nextBrowser = () =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${readerNumber++} Safari/537.36`;

async function publishedArticle(token: string): Promise<{ id: string; public_id: string }> {
  const post = await createPost(token);
  const published = await api<{ id: string; public_id: string }>('POST', `/posts/${post.id}/publish`, { token });
  expect(published.status).toBe(200);
  return published.body;
}

/** One reader's open beacon, a new user agent each time. */
async function open(origin: string, publicId: string, forwardedFor?: string): Promise<void> {
  const headers: Record<string, string> = { 'user-agent': nextBrowser() };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  const res = await fetch(`${origin}/api/reader/${publicId}/open.gif`, { headers });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

interface DualStack {
  port: number;
  stop(): Promise<number | null>;
}

/** An instance listening on `::` (startService waits for an IPv4 start-up line only). */
async function startDualStack(env: Record<string, string>): Promise<DualStack> {
  const dataDir = tempDataDir();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/launcher.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '::',
      DATA_DIR: dataDir,
      DATABASE_URL: await sharedDatabaseUrl(),
      LOG_LEVEL: 'silent',
      ...API_ONLY,
      ...env,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${logs}`)), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      logs += chunk.toString('utf8');
      const match = /serving on http:\/\/\[::\]:(\d+)/.exec(logs);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before serving:\n${logs}`));
    });
  });
  return {
    port,
    stop: async () => {
      const code = await new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (c) => resolve(c));
        child.kill('SIGTERM');
      });
      removeDataDir(dataDir);
      return code;
    },
  };
}

let proxied: ExtraService | undefined;
let dualStack: DualStack | undefined;
let token: string;
const articles: Record<
  'oneSlash64' | 'ipv4Spellings' | 'ipv4Apart' | 'loopbackForwarded' | 'loopbackPeers' | 'oneSlash48',
  { id: string; public_id: string }
> = {} as never;

afterAll(async () => {
  await Promise.all([proxied?.stop(), dualStack?.stop()]);
});

beforeAll(async () => {
  token = (await newAccount()).token;
  for (const name of [
    'oneSlash64',
    'ipv4Spellings',
    'ipv4Apart',
    'loopbackForwarded',
    'loopbackPeers',
    'oneSlash48',
  ] as const)
    articles[name] = await publishedArticle(token);
  [proxied, dualStack] = await Promise.all([
    startExtraService({ ...API_ONLY, TRUSTED_PROXIES: '127.0.0.1' }),
    startDualStack({ TRUSTED_PROXIES: '127.0.0.1', READER_IPV6_PREFIX: '48' }),
  ]);
  const behindProxy = proxied.service.baseUrl;
  const asIPv4 = `http://127.0.0.1:${dualStack.port}`;
  const asIPv6 = `http://[::1]:${dualStack.port}`;

  // 25 addresses of one /64, in several spellings, and one of the next /64.
  for (let i = 1; i <= 25; i++) {
    const address = i % 3 === 0 ? `2001:DB8:A:B:${i.toString(16)}::1` : `2001:db8:a:b:0:${i.toString(16)}:0:${i}`;
    await open(behindProxy, articles.oneSlash64.public_id, address);
  }
  await open(behindProxy, articles.oneSlash64.public_id, '2001:db8:a:c::1');

  // One IPv4 client under three spellings: as such, IPv4-mapped, IPv4-mapped in hex.
  for (let i = 0; i < 12; i++) await open(behindProxy, articles.ipv4Spellings.public_id, '203.0.113.9');
  for (let i = 0; i < 12; i++) await open(behindProxy, articles.ipv4Spellings.public_id, '::ffff:203.0.113.9');
  for (let i = 0; i < 4; i++) await open(behindProxy, articles.ipv4Spellings.public_id, '::ffff:cb00:7109');

  // 25 IPv4 addresses of one /24: 25 clients, as before.
  for (let i = 1; i <= 25; i++) await open(behindProxy, articles.ipv4Apart.public_id, `198.51.100.${i}`);

  // This machine, forwarded under three loopback spellings.
  for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
    for (let i = 0; i < 10; i++) await open(behindProxy, articles.loopbackForwarded.public_id, address);

  // This machine reaching a dual-stack listener directly: as ::ffff:127.0.0.1 and as ::1.
  for (let i = 0; i < 15; i++) await open(asIPv4, articles.loopbackPeers.public_id);
  for (let i = 0; i < 15; i++) await open(asIPv6, articles.loopbackPeers.public_id);

  // READER_IPV6_PREFIX=48: 25 /64s of one /48 are one client.
  for (let i = 1; i <= 25; i++) await open(asIPv4, articles.oneSlash48.public_id, `2001:db8:5:${i.toString(16)}::1`);

  const codes = await Promise.all([proxied.stop(), dualStack.stop()]);
  proxied = undefined;
  dualStack = undefined;
  expect(codes).toEqual([0, 0]);
});

const opened = async (article: { id: string }) =>
  (await api<{ open_count: number }>('GET', `/posts/${article.id}`, { token })).body.open_count;

it('one /64 with 25 addresses adds at most the share; another /64 is another client', async () => {
  expect(await opened(articles.oneSlash64)).toBe(SHARE + 1);
});

it('::ffff: and IPv4 spellings of one client share it; IPv4 addresses still count one by one', async () => {
  expect(await opened(articles.ipv4Spellings)).toBe(SHARE);
  expect(await opened(articles.ipv4Apart)).toBe(25);
});

it('every loopback spelling is this one machine, forwarded or as the peer of a dual-stack listener', async () => {
  expect(await opened(articles.loopbackForwarded)).toBe(SHARE);
  expect(await opened(articles.loopbackPeers)).toBe(SHARE);
});

it('READER_IPV6_PREFIX=48 makes a /48 one client', async () => {
  expect(await opened(articles.oneSlash48)).toBe(SHARE);
});
