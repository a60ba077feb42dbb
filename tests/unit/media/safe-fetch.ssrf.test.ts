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
      expect(err.problem).toBe(expectedKind(entry));
      expect(err.kind).toBe('invalid');
      // Never what the name resolved to, nor the reason the address is internal.
      if (err.problem === 'forbidden_address') expect(err.message).toBe('url: address not allowed');
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
    const logged: Array<Record<string, unknown>> = [];
    const err = await refusal(
      safeFetch('https://images.example/cat.png', { resolver, connector, log: (f) => logged.push(f) }),
    );
    expect(err.problem).toBe('forbidden_address');
    // What the name resolved to stays in the log: the author learns nothing about the inside.
    expect(err.message).toBe('url: address not allowed');
    expect(logged).toEqual([
      expect.objectContaining({ host: 'images.example', address: '10.0.0.7', problem: 'private' }),
    ]);
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
      expect((await refusal(safeFetch(url, { resolver, connector }))).problem).toBe('forbidden_address');
    }
    expect(asked).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('reports an unresolvable name as a network failure', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const { connector } = countingConnector();
    const logged: Array<Record<string, unknown>> = [];
    const err = await refusal(
      safeFetch('http://nowhere.invalid/', { resolver, connector, log: (f) => logged.push(f) }),
    );
    expect(err.problem).toBe('network');
    expect(err.message).toBe('url: could not fetch the image');
    expect(logged).toEqual([expect.objectContaining({ host: 'nowhere.invalid', code: 'ENOTFOUND' })]);
    expect((await refusal(safeFetch('http://empty.invalid/', { resolver: async () => [], connector }))).problem).toBe(
      'network',
    );
  });
});

describe('ports', () => {
  const publicResolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];

  it('refuses a public address on a port other than 80 and 443 before connecting, without naming the port', async () => {
    const { connector, calls } = countingConnector();
    for (const url of ['http://img.example:8080/a.png', 'https://img.example:22/a.png', 'http://93.184.216.34:6379/']) {
      const logged: Array<Record<string, unknown>> = [];
      const err = await refusal(safeFetch(url, { resolver: publicResolver, connector, log: (f) => logged.push(f) }));
      expect(err.problem, url).toBe('forbidden_address');
      expect(err.message, url).toBe('url: address not allowed');
      expect(logged[0]?.problem, url).toMatch(/^port \d+ is not allowed for a public address$/);
    }
    expect(calls).toEqual([]);
  });

  it('dials a public address on 80, 443 and the ports ALLOWED_OUTBOUND_PORTS adds', async () => {
    const dialed: string[] = [];
    const connector: Connector = async (hop) => {
      dialed.push(`${hop.address}:${hop.url.port}`);
      return okResponse(Buffer.from('img'));
    };
    const allowList = parseAllowList('', '8080');
    for (const url of [
      'http://img.example/a',
      'https://img.example/a',
      'http://img.example:443/a',
      'http://img.example:8080/a',
    ]) {
      await safeFetch(url, { resolver: publicResolver, connector, allowList });
    }
    expect(dialed).toEqual(['93.184.216.34:', '93.184.216.34:', '93.184.216.34:443', '93.184.216.34:8080']);
  });

  it('lets an address admitted by ALLOWED_PRIVATE_ADDRESSES use any port', async () => {
    const dialed: string[] = [];
    const connector: Connector = async (hop) => {
      dialed.push(`${hop.address}:${hop.url.port}`);
      return okResponse(Buffer.from('img'));
    };
    const resolver: Resolver = async () => [{ address: '10.1.2.3', family: 4 }];
    await safeFetch('http://intranet.example:8081/a', { resolver, connector, allowList: parseAllowList('10.0.0.0/8') });
    expect(dialed).toEqual(['10.1.2.3:8081']);
  });

  it('checks the port again at every redirect hop', async () => {
    const dialed: string[] = [];
    const connector: Connector = async (hop) => {
      dialed.push(hop.url.href);
      return redirectResponse('http://img.example:25/');
    };
    const err = await refusal(safeFetch('http://img.example/a', { resolver: publicResolver, connector }));
    expect(err.message).toBe('url: address not allowed');
    expect(dialed).toEqual(['http://img.example/a']);
  });

  it('re-checks the connected peer with the port rule', async () => {
    const verdicts: boolean[] = [];
    const connector: Connector = async (hop) => {
      verdicts.push(hop.isPeerAllowed('93.184.216.34'), hop.isPeerAllowed('10.0.0.1'));
      return okResponse(Buffer.from('img'));
    };
    await safeFetch('http://img.example/a', { resolver: publicResolver, connector });
    expect(verdicts).toEqual([true, false]);
  });
});

describe('transport failures say only that the image could not be fetched', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 93.184.216.34:443', 'network', 'url: could not fetch the image'],
    ['ECONNRESET', 'read ECONNRESET', 'network', 'url: could not fetch the image'],
    [
      'UND_ERR_CONNECT_TIMEOUT',
      'Connect Timeout Error',
      'timeout',
      'url: could not fetch the image (the source took too long)',
    ],
  ])('%s', async (code, detail, kind, message) => {
    const logged: Array<Record<string, unknown>> = [];
    const connector: Connector = async () => {
      throw Object.assign(new Error(detail), { code });
    };
    const err = await refusal(
      safeFetch('https://img.example/a', {
        resolver: async () => [{ address: '93.184.216.34', family: 4 }],
        connector,
        log: (f) => logged.push(f),
      }),
    );
    expect(err.problem).toBe(kind);
    expect(err.message).toBe(message);
    expect(logged).toEqual([expect.objectContaining({ code, address: '93.184.216.34', port: 443 })]);
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
    expect(err.problem).toBe('forbidden_address');
    expect(dialed).toEqual(['https://307.r3dir.me/--to/?url=http://localhost']);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = async () => redirectResponse('file:///etc/passwd');
    expect((await refusal(safeFetch('http://img.example/a', { resolver, connector }))).problem).toBe('bad_scheme');
  });

  it('maps a connect timeout reported by the transport to kind timeout', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = async () => {
      throw Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    };
    const err = await refusal(safeFetch('http://img.example/a', { resolver, connector }));
    expect(err.problem).toBe('timeout');
  });

  it('gives up when the total deadline passes while the connector hangs', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const connector: Connector = (hop) =>
      new Promise((_resolve, reject) => hop.signal.addEventListener('abort', () => reject(hop.signal.reason)));
    const err = await refusal(safeFetch('http://img.example/a', { resolver, connector, totalTimeoutMs: 50 }));
    expect(err.problem).toBe('timeout');
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
