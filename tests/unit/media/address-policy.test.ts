import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAddress, checkDestination, isAddressAllowed, parseAllowList } from '../../../server/media/address-policy';

const refused = (ip: string, allow = parseAllowList('')) => {
  const verdict = checkAddress(ip, allow);
  return verdict.allowed ? null : verdict.reason;
};

describe('checkAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata service'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['192.0.0.192', 'cloud metadata'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard'],
    ['fec0::1', 'site-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['4000::1', 'not global unicast'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(refused(ip)).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows public %s', (ip) => {
    expect(refused(ip)).toBeNull();
  });

  it('refuses anything that is not a strict IP literal (URL canonicalization is safeFetch’s job)', () => {
    for (const text of ['localhost', '0x7f000001', '2130706433', '127.1', '0177.0.0.1', '', 'example.com']) {
      expect(refused(text)).toBe('not an IP address');
    }
  });

  it('reports the canonical form of the address', () => {
    expect(checkAddress('0:0:0:0:0:0:0:1')).toMatchObject({ allowed: false, address: '::1' });
  });
});

describe('allow list (ALLOWED_PRIVATE_ADDRESSES)', () => {
  it('parses comma-separated CIDRs and bare addresses', () => {
    const allow = parseAllowList(' 127.0.0.0/8, 10.0.0.5 ,fd00::/8,');
    expect(allow.ranges).toHaveLength(3);
    expect(isAddressAllowed('127.0.0.1', allow)).toBe(true);
    expect(isAddressAllowed('10.0.0.5', allow)).toBe(true);
    expect(isAddressAllowed('10.0.0.6', allow)).toBe(false);
    expect(isAddressAllowed('fd00::1', allow)).toBe(true);
    expect(isAddressAllowed('::1', allow)).toBe(false);
  });

  it('is empty for empty, undefined or null', () => {
    expect(parseAllowList('').ranges).toEqual([]);
    expect(parseAllowList(undefined).ranges).toEqual([]);
    expect(parseAllowList(null).ranges).toEqual([]);
  });

  it('throws on a malformed entry instead of silently allowing nothing', () => {
    expect(() => parseAllowList('127.0.0.0/8,nonsense')).toThrow(/nonsense/);
    expect(() => parseAllowList('10.0.0.0/33')).toThrow();
  });

  it.each(['192.168.1.010', '10.1/16', '017700000001', '0x7f.1', '127.1', '10.0.0.0/8/8', '10.0.0.0/', 'fe80::1%eth0'])(
    'refuses the non-canonical spelling %s, naming it',
    (entry) => {
      expect(() => parseAllowList(`127.0.0.0/8,${entry}`)).toThrow(
        `ALLOWED_PRIVATE_ADDRESSES: "${entry}" is not a canonical IP address or CIDR`,
      );
    },
  );

  it('accepts canonical addresses and CIDRs of both families', () => {
    const allow = parseAllowList('10.0.0.0/8,192.168.1.10,::1,fd00::/8,::ffff:127.0.0.1');
    expect(allow.ranges.map(([addr, bits]) => `${addr.toString()}/${bits}`)).toEqual([
      '10.0.0.0/8',
      '192.168.1.10/32',
      '::1/128',
      'fd00::/8',
      '::ffff:7f00:1/128',
    ]);
  });

  it('applies to IPv4-mapped forms of an allowed IPv4 range', () => {
    expect(isAddressAllowed('::ffff:127.0.0.1', parseAllowList('127.0.0.0/8'))).toBe(true);
  });

  it('never re-enables cloud metadata endpoints', () => {
    const allow = parseAllowList('169.254.0.0/16,100.64.0.0/10,fd00::/8,192.0.0.0/24');
    expect(isAddressAllowed('169.254.1.1', allow)).toBe(true);
    for (const ip of ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254', '192.0.0.192', '::ffff:169.254.169.254']) {
      expect(refused(ip, allow)).toContain('cloud metadata');
    }
  });
});

describe('properties', () => {
  const inRange = (base: number, bits: number) =>
    fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => {
      const n = (base + offset) >>> 0;
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    });
  const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

  it('every address of every forbidden IPv4 range is refused, also when IPv4-mapped', () => {
    const ranges: Array<[number, number]> = [
      [v4(0, 0, 0, 0), 8],
      [v4(10, 0, 0, 0), 8],
      [v4(100, 64, 0, 0), 10],
      [v4(127, 0, 0, 0), 8],
      [v4(169, 254, 0, 0), 16],
      [v4(172, 16, 0, 0), 12],
      [v4(192, 168, 0, 0), 16],
      [v4(224, 0, 0, 0), 3],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...ranges).chain(([base, bits]) => inRange(base, bits)),
        (ip) => {
          expect(isAddressAllowed(ip)).toBe(false);
          expect(isAddressAllowed(`::ffff:${ip}`)).toBe(false);
        },
      ),
    );
  });

  it('a /8 allow list admits exactly its own range', () => {
    const allow = parseAllowList('127.0.0.0/8');
    fc.assert(
      fc.property(inRange(v4(127, 0, 0, 0), 8), (ip) => {
        expect(isAddressAllowed(ip, allow)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(inRange(v4(10, 0, 0, 0), 8), (ip) => {
        expect(isAddressAllowed(ip, allow)).toBe(false);
      }),
    );
  });
});

describe('ports (ALLOWED_OUTBOUND_PORTS)', () => {
  const PUBLIC = '93.184.216.34';

  it('admits public addresses on 80 and 443 only by default', () => {
    expect(checkDestination(PUBLIC, 80).allowed).toBe(true);
    expect(checkDestination(PUBLIC, 443).allowed).toBe(true);
    for (const port of [22, 25, 8080, 8443, 6379, 65535]) {
      expect(checkDestination(PUBLIC, port)).toEqual({
        allowed: false,
        address: PUBLIC,
        reason: `port ${port} is not allowed for a public address`,
      });
    }
  });

  it('widens the public ports with ALLOWED_OUTBOUND_PORTS', () => {
    const allow = parseAllowList('', ' 8080, 8443 ');
    expect([...allow.publicPorts].sort((a, b) => a - b)).toEqual([80, 443, 8080, 8443]);
    expect(checkDestination(PUBLIC, 8080, allow).allowed).toBe(true);
    expect(checkDestination(PUBLIC, 9000, allow).allowed).toBe(false);
  });

  it('lets an address admitted by ALLOWED_PRIVATE_ADDRESSES use any port', () => {
    const allow = parseAllowList('127.0.0.0/8,93.184.216.0/24');
    expect(checkDestination('127.0.0.1', 5432, allow).allowed).toBe(true);
    expect(checkDestination(PUBLIC, 8080, allow).allowed).toBe(true);
    expect(checkDestination('93.184.217.1', 8080, allow).allowed).toBe(false);
    // A port never re-enables what the address rules refuse.
    expect(checkDestination('10.0.0.1', 80, allow).allowed).toBe(false);
    expect(checkDestination('169.254.169.254', 80, parseAllowList('169.254.0.0/16')).allowed).toBe(false);
  });

  it.each(['0', '65536', 'http', '80-90', '8o', '1e3', '-1'])('refuses the port entry %s, naming it', (entry) => {
    expect(() => parseAllowList('', `8080,${entry}`)).toThrow(`ALLOWED_OUTBOUND_PORTS: "${entry}" is not a port`);
  });
});
