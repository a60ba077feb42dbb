import { describe, expect, it } from 'vitest';
import { isDirectLoopback } from '../../../server/http/loopback';

describe('isDirectLoopback (who may read /api/metrics without METRICS_TOKEN)', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])('%s directly: yes', (address) => {
    expect(isDirectLoopback(address, {})).toBe(true);
  });
  it.each(['203.0.113.9', '10.0.0.1', '::ffff:192.168.1.2', 'fe80::1', undefined, 'nonsense'])('%s: no', (address) => {
    expect(isDirectLoopback(address, {})).toBe(false);
  });
  it.each(['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'via'])(
    'loopback relayed by a proxy (%s): no',
    (header) => {
      expect(isDirectLoopback('127.0.0.1', { [header]: '203.0.113.9' })).toBe(false);
    },
  );
});
