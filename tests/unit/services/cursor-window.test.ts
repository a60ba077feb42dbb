import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as cursor from '../../../server/services/posts/cursor';
import { derivedKey } from '../../../server/foundation/secrets';
import { windowState } from '../../../server/admission/window-charge';
import { rateLimitHeaders } from '../../../server/http/errors';

/** Paging cursors (signed, bound to the account) and the fixed-window arithmetic behind RateLimit-*. */
// The cursor key is derived from the application secret; a fixed one, set before any module
// reads the environment, keeps the test off DATA_DIR.
vi.hoisted(() => {
  process.env.SESSION_SECRET = 'unit-test-secret-of-at-least-32-bytes!!';
});
afterAll(() => {
  delete process.env.SESSION_SECRET;
});

const position = fc.record({
  createdAt: fc.integer({ min: 0, max: 4102444800000 }).map((ms) => new Date(ms)),
  id: fc.uuid({ version: 4 }),
});

describe('cursors', () => {
  it('decode to the position they encode, for the account they were issued to', () => {
    fc.assert(
      fc.property(fc.uuid(), position, (account, pos) => {
        expect(cursor.decodeCursor(account, cursor.encodeCursor(account, pos))).toEqual(pos);
      }),
    );
  });

  it('are refused (null) for another account, and when any character is changed', () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.constantFrom('A', 'b', '0', '-', '_', '.'), (pos, at, ch) => {
        const account = randomUUID();
        const issued = cursor.encodeCursor(account, pos);
        expect(cursor.decodeCursor(randomUUID(), issued)).toBeNull();
        const i = at % issued.length;
        const changed = issued.slice(0, i) + ch + issued.slice(i + 1);
        if (changed !== issued) expect(cursor.decodeCursor(account, changed)).toBeNull();
      }),
    );
  });

  it('are HMAC-SHA256 of the account and the position (cursors issued before stay valid)', () => {
    const key = derivedKey('cursor');
    const mac = (account: string, payload: string) =>
      createHmac('sha256', key).update(`${account}\n${payload}`).digest('base64url').slice(0, 22);
    fc.assert(
      fc.property(fc.uuid(), position, (account, pos) => {
        const payload = Buffer.from(`${pos.createdAt.getTime()}.${pos.id}`, 'utf8').toString('base64url');
        expect(cursor.encodeCursor(account, pos)).toBe(`${payload}.${mac(account, payload)}`);
      }),
    );
  });

  it('are refused when hand-built or not a cursor at all', () => {
    const account = randomUUID();
    for (const junk of ['', '.', 'a.b.c', 'abc', Buffer.from(`1.${randomUUID()}`).toString('base64url') + '.x'])
      expect(cursor.decodeCursor(account, junk)).toBeNull();
  });
});

describe('windowState', () => {
  it('allows up to the limit within a window; the reset is the next minute boundary', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 59_999 }),
        (count, limit, offsetMs) => {
          const windowStart = 1_790_000_040; // a minute boundary
          const state = windowState(count, limit, windowStart, windowStart + offsetMs / 1000);
          expect(state.allowed).toBe(count <= limit);
          expect(state.remaining).toBe(Math.max(0, limit - count));
          expect(state.reset).toBe(windowStart + 60);
          expect(state.retryAfter).toBeGreaterThanOrEqual(1);
          expect(state.retryAfter).toBeLessThanOrEqual(60);
        },
      ),
    );
  });

  it('becomes the RateLimit-* headers, with Retry-After only when asked', () => {
    const state = windowState(31, 30, 1_790_000_040, 1_790_000_087.5);
    expect(rateLimitHeaders(state, true)).toEqual({
      'RateLimit-Limit': '30',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1790000100',
      'Retry-After': '13',
    });
    expect(rateLimitHeaders(state, false)).not.toHaveProperty('Retry-After');
  });
});
