/**
 * Every URL of the SSRF corpus must be refused before any connection is attempted. Names are
 * answered by a hostile stub DNS (each resolves to the internal target the corpus names, or to a
 * private address): the real resolver is never asked and the stub connector opens no socket.
 */
import { describe, expect, it } from 'vitest';
import { parseAllowList } from '../../../server/media/address-policy';
import { readCorpusJson } from '../../support/corpus-files';
import {
  FetchError,
  safeFetch,
  type Connector,
  type HopResponse,
  type ResolvedAddress,
  type Resolver,
} from '../../../server/media/safe-fetch';

interface SsrfEntry {
  url: string;
  category: string;
  target: string;
  needs_dns?: boolean;
  whatwg: { hostname?: string; error?: string };
}

const corpus = readCorpusJson<{ entries: SsrfEntry[] }>('ssrf/loopback-and-internal.json');

const family = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);

/** Internal addresses a hostile DNS would answer for the entry's host name. */
function hostileAnswers(entry: SsrfEntry): ResolvedAddress[] {
  const literal = entry.target.match(/(\d+\.\d+\.\d+\.\d+|::1|fd00:ec2::254)/g);
  const addresses = literal?.length ? literal : ['169.254.169.254', '10.0.0.1'];
  return addresses.map((address) => ({ address, family: family(address) }));
}

function countingConnector() {
  const calls: string[] = [];
  const connector: Connector = async (hop) => {
    calls.push(`${hop.url.href} -> ${hop.address}`);
    throw new Error('stub connector must not be reached');
  };
  return { connector, calls };
}

const expectedKind = (entry: SsrfEntry) => {
  if (entry.whatwg.error) return 'bad_url';
  if (entry.category === 'non-http-scheme') return 'bad_scheme';
  const url = new URL(entry.url);
  if (url.username || url.password) return 'bad_url';
  return 'forbidden_address';
};

async function refusal(promise: Promise<unknown>): Promise<FetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('SSRF corpus: refused with no connection attempted', () => {
  it('has the entries the corpus README announces', () => {
    expect(corpus.entries.length).toBe(131);
  });

  it.each(corpus.entries.map((entry) => [entry.category, entry.url, entry] as const))(
    '%s %s',
    async (_category, url, entry) => {
      const asked: string[] = [];
      const resolver: Resolver = async (name) => {
        asked.push(name);
        return hostileAnswers(entry);
      };
      const { connector, calls } = countingConnector();
      const err = await refusal(safeFetch(url, { resolver, connector }));
      expect(err.kind).toBe(expectedKind(entry));
      expect(err.status).toBe(400);
      expect(calls).toEqual([]);
      // The fetcher judges the host the WHATWG parser sees, never a different reading of the string.
      if (asked.length) expect(asked).toEqual([entry.whatwg.hostname!.replace(/\.$/, '')]);
    },
  );

  it('also refuses them with 127.0.0.0/8 allowed when the target is not loopback', async () => {
    const allow = parseAllowList('127.0.0.0/8');
    const { connector, calls } = countingConnector();
    for (const entry of corpus.entries.filter((e) => /169\.254|10\.0\.0|192\.168|fd00|fe80|fc00/.test(e.target))) {
      const resolver: Resolver = async () => hostileAnswers(entry);
      await refusal(safeFetch(entry.url, { resolver, connector, allowList: allow }));
    }
    expect(calls).toEqual([]);
  });
});

describe('DNS answers', () => {
  it('refuses a name when ANY of its addresses is private, before connecting', async () => {
    const { connector, calls } = countingConnector();
    const resolver: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const err = await refusal(safeFetch('https://images.example/cat.png', { resolver, connector }));
    expect(err.kind).toBe('forbidden_address');
    expect(err.message).toContain('10.0.0.7');
    expect(calls).toEqual([]);
  });

  it('resolves once per hop and dials the vetted address, so a rebinding answer is never used', async () => {
    let call = 0;
    const resolver: Resolver = async () =>
      call++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '169.254.169.254', family: 4 }];
    const dialed: string[] = [];
    const connector: Connector = async (hop) => {
      dialed.push(hop.address);
      return okResponse(Buffer.from('img'));
    };
    const result = await safeFetch('http://make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms/x.png', {
      resolver,
      connector,
    });
    expect(result.buffer.toString()).toBe('img');
    expect(call).toBe(1);
    expect(dialed).toEqual(['93.184.216.34']);
  });

  it('refuses localhost names without asking DNS (RFC 6761)', async () => {
    const asked: string[] = [];
    const resolver: Resolver = async (name) => {
      asked.push(name);
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const { connector, calls } = countingConnector();
    for (const url of ['http://localhost/', 'http://LOCALHOST./', 'http://a.b.localhost/']) {
      expect((await refusal(safeFetch(url, { resolver, connector }))).kind).toBe('forbidden_address');
    }
    expect(asked).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('reports an unresolvable name as a network failure', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const { connector } = countingConnector();
    const err = await refusal(safeFetch('http://nowhere.invalid/', { resolver, connector }));
    expect(err.kind).toBe('network');
    expect(err.message).toContain('ENOTFOUND');
    expect((await refusal(safeFetch('http://empty.invalid/', { resolver: async () => [], connector }))).kind).toBe(
      'network',
    );
  });
});

describe('redirect hops (stubbed, no sockets)', () => {
  it('refuses a redirect to an internal address at that hop', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const dialed: string[] = [];
    const connector: Connector = async (hop) => {
      dialed.push(hop.url.href);
      return redirectResponse('http://localhost/');
    };
    const err = await refusal(safeFetch('https://307.r3dir.me/--to/?url=http://localhost', { resolver, connector }));
    expect(err.kind).toBe('forbidden_address');
    expect(dialed).toEqual(['https://307.r3dir.me/--to/?url=http://localhost']);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = async () => redirectResponse('file:///etc/passwd');
    expect((await refusal(safeFetch('http://img.example/a', { resolver, connector }))).kind).toBe('bad_scheme');
  });

  it('maps a connect timeout reported by the transport to kind timeout', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = async () => {
      throw Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    };
    const err = await refusal(safeFetch('http://img.example/a', { resolver, connector }));
    expect(err.kind).toBe('timeout');
  });

  it('gives up when the total deadline passes while the connector hangs', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = (hop) =>
      new Promise((_resolve, reject) => hop.signal.addEventListener('abort', () => reject(hop.signal.reason)));
    const err = await refusal(safeFetch('http://img.example/a', { resolver, connector, totalTimeoutMs: 50 }));
    expect(err.kind).toBe('timeout');
  });
});

function okResponse(body: Buffer): HopResponse {
  return {
    status: 200,
    headers: { 'content-type': 'image/png', 'content-length': String(body.length) },
    body: (async function* () {
      yield body;
    })(),
    dispose: async () => undefined,
  };
}

function redirectResponse(location: string): HopResponse {
  return {
    status: 307,
    headers: { location },
    body: (async function* () {})(),
    dispose: async () => undefined,
  };
}
