import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { safeReturnPath, signInPath } from '@/server/console/return-path';

const BASE = 'https://console.example';

describe('safeReturnPath', () => {
  it('keeps console paths with their query', () => {
    expect(safeReturnPath('/console/account')).toBe('/console/account');
    expect(safeReturnPath('/console?status=draft')).toBe('/console?status=draft');
    expect(safeReturnPath('/console/articles/0b7c7d8e-0000-4000-8000-000000000000')).toBe(
      '/console/articles/0b7c7d8e-0000-4000-8000-000000000000',
    );
  });

  it('refuses other sites, scheme-relative addresses, escapes out of /console and odd characters', () => {
    for (const raw of [
      'https://evil.example/console',
      '//evil.example/console',
      '/\\evil.example',
      '/console/../api/v1/author/me',
      '/console/%2e%2e/api',
      '/consolex',
      '/console\\@evil.example',
      '/console\t/x',
      'javascript:alert(1)',
      '',
      null,
      42,
    ])
      expect(safeReturnPath(raw)).toBe('/console');
  });

  it('always answers a path of the console on the same origin, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.webUrl(),
          fc.string().map((s) => `/console${s}`),
        ),
        (raw) => {
          const out = safeReturnPath(raw);
          const url = new URL(out, BASE);
          expect(url.origin).toBe(BASE);
          expect(url.pathname === '/console' || url.pathname.startsWith('/console/')).toBe(true);
          expect(out.startsWith('//')).toBe(false);
        },
      ),
    );
  });

  it('builds the sign-in address that returns there', () => {
    expect(signInPath('/console/media')).toBe('/console?next=%2Fconsole%2Fmedia');
    expect(signInPath('/console')).toBe('/console');
    expect(signInPath('https://evil.example/')).toBe('/console');
  });
});
