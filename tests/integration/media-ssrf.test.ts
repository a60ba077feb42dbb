/**
 * Every loopback spelling of the shared SSRF corpus, sent over HTTP to a service instance that
 * runs WITHOUT ALLOWED_PRIVATE_ADDRESSES, is refused with 400 — and a counting listener on
 * 127.0.0.1 (the port of every URL is rewritten to it, the host spelling kept) sees zero
 * connections. Only loopback hosts are handed to the live service: the non-loopback forms of
 * the corpus (metadata, private ranges, names that resolve inside) are covered by the unit
 * tests with a stub resolver and connector, so a failed guard can never send a packet away.
 * A control request to the global service (which allows 127.0.0.0/8) proves the listener works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newAccount } from '../support/api';
import { readCorpusJson } from '../support/corpus-files';
import { solidPng, startExtraService, startFileServer, type ExtraService, type FileServer } from './media-helpers';
import { API_ONLY } from '../support/service';

interface SsrfEntry {
  url: string;
  category: string;
  whatwg: { hostname?: string; error?: string };
}
const corpus = readCorpusJson<{ entries: SsrfEntry[] }>('ssrf/loopback-and-internal.json');

/** Hosts that stay on this machine whatever happens: 127/8, ::1, IPv4-mapped 127/8, 0.0.0.0 and localhost names (never sent to DNS). */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  return (
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    h === '0.0.0.0' ||
    h === '::1' ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h) ||
    h === 'localhost' ||
    h.endsWith('.localhost')
  );
}

/** Same string with the authority's port replaced: the host keeps its original spelling. */
function withPort(raw: string, port: number): string | null {
  const match = raw.match(/^(https?:\/\/)([^/?#\\]*)(.*)$/is);
  if (!match) return null;
  const authority = match[2]!;
  if (authority.includes('@')) return null;
  const host = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:\d*$/, '');
  return `${match[1]}${host}:${port}${match[3]}`;
}

let listener: FileServer;
let hardened: ExtraService;
let token: string;
let cases: Array<{ entry: SsrfEntry; url: string }>;

beforeAll(async () => {
  const png = await solidPng(8, 8);
  listener = await startFileServer();
  listener.routes['/'] = { type: 'image/png', body: png };
  cases = corpus.entries
    .filter(
      (e) => !e.whatwg.error && e.whatwg.hostname && isLoopbackHost(e.whatwg.hostname) && /^https?:\/\//i.test(e.url),
    )
    .map((entry) => ({ entry, url: withPort(entry.url, listener.port) }))
    .filter((c): c is { entry: SsrfEntry; url: string } => c.url !== null)
    // The rewritten URL must still parse to a loopback host on the listener's port.
    .filter((c) => {
      const u = new URL(c.url);
      return isLoopbackHost(u.hostname) && u.port === String(listener.port);
    });
  hardened = await startExtraService({ ...API_ONLY, ALLOWED_PRIVATE_ADDRESSES: '' });
  ({ token } = await newAccount());
});
afterAll(async () => {
  await hardened?.stop();
  await listener?.close();
});

describe('SSRF corpus over HTTP, without ALLOWED_PRIVATE_ADDRESSES', () => {
  it('covers the loopback forms of the corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(35);
    expect(new Set(cases.map((c) => c.entry.category))).toEqual(
      new Set([
        'loopback-name',
        'loopback-ipv4',
        'loopback-shorthand',
        'unspecified',
        'loopback-ipv6',
        'ipv4-mapped-ipv6',
        'encoded-ipv4-decimal',
        'encoded-ipv4-octal',
        'encoded-ipv4-hex',
        'encoding',
        'encoding-unicode',
        'parser-confusion',
        'scheme-case',
        'cloud-metadata',
      ]),
    );
  });

  it('refuses every one on POST /media/from-url with 400 and opens no connection', async () => {
    for (const { url } of cases) {
      const res = await hardened.call('POST', '/media/from-url', { token, json: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toEqual({ error: 'url: address not allowed' });
    }
    expect(listener.connections).toBe(0);
  });

  it('rehost on POST /posts refuses them too: all in rehost_failed, no connection', async () => {
    const sample = cases.filter((_, i) => i % 3 === 0).map((c) => c.url);
    const res = await hardened.call('POST', '/posts', {
      token,
      json: { title: 'SSRF', markdown: sample.map((u) => `![x](${u})`).join('\n\n') },
    });
    expect(res.status, res.text).toBe(201);
    // The content pipeline canonicalizes URLs, so compare the set sizes, not the spellings.
    expect(res.body.rehost_failed.length).toBeGreaterThan(0);
    expect(listener.connections).toBe(0);
  });

  it('control: the global service (127.0.0.0/8 allowed) does reach the listener', async () => {
    const res = await api('POST', '/media/from-url', { token, json: { url: `http://127.0.0.1:${listener.port}/` } });
    expect(res.status, res.text).toBe(200);
    expect(listener.connections).toBeGreaterThan(0);
  });
});
