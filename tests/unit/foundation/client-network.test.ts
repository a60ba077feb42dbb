/**
 * The network a reader's address stands for (server/foundation/client-network.ts, clientNetwork):
 * what one client controls, so the per-address share holds however many of its addresses, or
 * spellings of one, it sends from. And READER_IPV6_PREFIX, validated at start.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LOOPBACK_NETWORK,
  clientNetwork,
  connectionSource,
  sameAddress,
} from '../../../server/foundation/client-network';
import { ReaderTally } from '../../../server/services/readers/reader-tally';

describe('clientNetwork', () => {
  it('keys an IPv6 address by its /64, whatever its spelling', () => {
    const net = clientNetwork('2001:db8:a:b::1');
    for (const address of [
      '2001:db8:a:b::2',
      '2001:DB8:A:B:ffff:ffff:ffff:ffff',
      '2001:0db8:000a:000b:1:2:3:4',
      '2001:db8:a:b:0:0:1.2.3.4',
      '2001:db8:a:b::1%eth0',
    ])
      expect(clientNetwork(address), address).toBe(net);
    expect(clientNetwork('2001:db8:a:c::1')).not.toBe(net);
    expect(clientNetwork('2001:db8:b:b::1')).not.toBe(net);
  });

  it('takes the prefix length it is given', () => {
    expect(clientNetwork('2001:db8:a:b::1', 48)).toBe(clientNetwork('2001:db8:a:ffff::9', 48));
    expect(clientNetwork('2001:db8:a:b::1', 48)).not.toBe(clientNetwork('2001:db8:b:b::1', 48));
    expect(clientNetwork('2001:db8:a:b::1', 56)).toBe(clientNetwork('2001:db8:a:ff::1', 56));
    expect(clientNetwork('2001:db8:a:b::1', 56)).not.toBe(clientNetwork('2001:db8:a:100::1', 56));
    expect(clientNetwork('2001:db8:a:b::1', 128)).not.toBe(clientNetwork('2001:db8:a:b::2', 128));
    expect(clientNetwork('2001:db8:a:b::1', 128)).toBe(clientNetwork('2001:DB8:A:B:0::1', 128));
  });

  it('reads IPv4 written as IPv6 (mapped, NAT64) as that IPv4 address, and counts IPv4 addresses one by one', () => {
    for (const address of [
      '::ffff:203.0.113.9',
      '::FFFF:cb00:7109',
      '0:0:0:0:0:ffff:203.0.113.9',
      '64:ff9b::203.0.113.9',
    ])
      expect(clientNetwork(address), address).toBe('203.0.113.9');
    expect(clientNetwork('203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('203.0.113.10')).not.toBe(clientNetwork('203.0.113.9'));
  });

  it('takes every loopback spelling for this one machine', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1'])
      expect(clientNetwork(address), address).toBe(LOOPBACK_NETWORK);
  });

  it('gives back what is not an IP address as it came, and a network key as itself', () => {
    expect(clientNetwork('')).toBe('');
    expect(clientNetwork('unknown')).toBe('unknown');
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: 32, max: 128 }), (address, prefix) => {
        const net = clientNetwork(address, prefix);
        expect(clientNetwork(net, prefix)).toBe(net);
      }),
    );
  });

  it('gives every address of one /64 the same key, and two /64s two keys', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16));
    fc.assert(
      fc.property(
        fc.array(group, { minLength: 4, maxLength: 4 }),
        fc.array(group, { minLength: 4, maxLength: 4 }),
        fc.array(group, { minLength: 4, maxLength: 4 }),
        (prefix, a, b) => {
          fc.pre(prefix[0] !== '0' && prefix[0] !== '64');
          const net = clientNetwork([...prefix, ...a].join(':'));
          expect(clientNetwork([...prefix, ...b].join(':'))).toBe(net);
          const other = [...prefix];
          other[3] = ((parseInt(other[3]!, 16) + 1) & 0xffff).toString(16);
          expect(clientNetwork([...other, ...a].join(':'))).not.toBe(net);
        },
      ),
    );
  });
});

describe('the tally keyed by network', () => {
  it('lets 25 addresses of one /64, or two spellings of one IPv4 address, add the share only', () => {
    const tally = new ReaderTally({ readersPerAddress: 20 });
    const at = Date.UTC(2026, 10, 24, 12);
    const outcomes = Array.from({ length: 25 }, (_, i) =>
      tally.record({
        address: clientNetwork(`2001:db8:a:b::${(i + 1).toString(16)}`),
        userAgent: `Mozilla/5.0 ${i}`,
        publicId: 'abcdefghij',
        kind: 'open',
        at,
      }),
    );
    expect(outcomes.filter((o) => o === 'pending')).toHaveLength(20);
    expect(outcomes.slice(20)).toEqual(Array(5).fill('limited'));
    const spellings = Array.from({ length: 30 }, (_, i) =>
      tally.record({
        address: clientNetwork(i % 2 ? '::ffff:203.0.113.9' : '203.0.113.9'),
        userAgent: `Mozilla/5.0 ${i}`,
        publicId: 'abcdefghij',
        kind: 'open',
        at,
      }),
    );
    expect(spellings.filter((o) => o === 'pending')).toHaveLength(20);
  });
});

describe('READER_IPV6_PREFIX', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    // The modules read under the stubbed values go too: the next file of this worker (the unit
    // project shares workers between files) imports them anew.
    vi.resetModules();
  });
  async function loadEnv(value: string) {
    vi.resetModules();
    vi.stubEnv('READER_IPV6_PREFIX', value);
    return import('../../../server/foundation/env');
  }

  it('is 64 unless set, and takes 32 to 128', async () => {
    expect((await loadEnv('')).env.READER_IPV6_PREFIX).toBe(64);
    expect((await loadEnv('56')).env.READER_IPV6_PREFIX).toBe(56);
    expect((await loadEnv('128')).env.READER_IPV6_PREFIX).toBe(128);
  });

  it.each(['0', '31', '129', '64.5', 'sixty-four'])('%s fails the start', async (value) => {
    await expect(loadEnv(value)).rejects.toThrow(/Invalid environment: READER_IPV6_PREFIX: /);
  });
});

describe('sameAddress', () => {
  it('writes one address one way, so a proxy list matches the peer whatever its spelling', () => {
    expect(sameAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(sameAddress('::FFFF:a00:1')).toBe('10.0.0.1');
    expect(sameAddress('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(sameAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(sameAddress('10.1')).toBe('10.1');
    expect(sameAddress('proxy.internal')).toBe('proxy.internal');
    expect(sameAddress('2001:db8::1')).not.toBe(sameAddress('2001:db8::2'));
  });
});

describe('connectionSource', () => {
  it('counts a network as clientNetwork does, but each loopback address (a local process) by itself', () => {
    expect(connectionSource('2001:db8:a:b::1')).toBe(connectionSource('2001:db8:a:b::ff'));
    expect(connectionSource('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(connectionSource('127.0.0.5')).not.toBe(connectionSource('127.0.0.6'));
    expect(connectionSource('::ffff:127.0.0.5')).toBe(connectionSource('127.0.0.5'));
  });
});
