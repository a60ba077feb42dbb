/**
 * The loopback forms of the SSRF corpus, aimed at a real listener on 127.0.0.1 (port rewritten,
 * spelling of the host kept) with the real connector: without an allow list none of them may
 * open a connection. A control run with 127.0.0.0/8 allowed shows the rewritten URLs really do
 * reach the listener, so the zero is meaningful. Names are answered by a stub resolver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../../../server/media/address-policy';
import { readCorpusJson } from '../../support/corpus-files';
import { FetchError, safeFetch, type Resolver } from '../../../server/media/safe-fetch';
import { startLocalServer, type LocalServer } from './helpers/local-server';

interface SsrfEntry {
  url: string;
  category: string;
  target: string;
  whatwg: { hostname?: string; error?: string };
}
const corpus = readCorpusJson<{ entries: SsrfEntry[] }>('ssrf/loopback-and-internal.json');

const stubResolver: Resolver = async () => [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** Same string with the authority's port replaced: the host keeps its original spelling. */
function withPort(raw: string, port: number): string | null {
  const match = raw.match(/^(https?:\/\/)([^/?#\\]*)(.*)$/is);
  if (!match) return null;
  const authority = match[2];
  if (authority.includes('@')) return null;
  const host = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:\d*$/, '');
  return `${match[1]}${host}:${port}${match[3]}`;
}

const loopbackish = corpus.entries.filter(
  (e) => !e.whatwg.error && /^https?:/i.test(e.url) && /127\.|::1|0\.0\.0\.0|^::|localhost/.test(e.target),
);

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer((_req, res) => res.end('reached'));
});
afterAll(() => server.close());

describe('loopback corpus forms against a live listener', () => {
  const cases = loopbackish
    .map((entry) => ({ entry, url: withPort(entry.url, 0) }))
    .filter((c): c is { entry: SsrfEntry; url: string } => c.url !== null);

  it('covers the loopback forms of the corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses every one of them without a single connection', async () => {
    for (const { entry } of cases) {
      const url = withPort(entry.url, server.port)!;
      expect(new URL(url).port, url).toBe(String(server.port));
      const err = await safeFetch(url, { resolver: stubResolver }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, url).toBeInstanceOf(FetchError);
      expect((err as FetchError).problem, url).toBe('forbidden_address');
    }
    expect(server.connections).toBe(0);
  });

  it('control: with 127.0.0.1 allowed, the 127.0.0.1 spellings do reach the listener', async () => {
    const to127 = cases.filter(({ entry }) => entry.whatwg.hostname === '127.0.0.1' && /^http:/i.test(entry.url));
    expect(to127.length).toBeGreaterThanOrEqual(15);
    for (const { entry } of to127) {
      const url = withPort(entry.url, server.port)!;
      const result = await safeFetch(url, { allowList: parseAllowList('127.0.0.1/32'), resolver: stubResolver });
      expect(result.buffer.toString(), url).toBe('reached');
    }
    expect(server.connections).toBe(to127.length);
  });
});
