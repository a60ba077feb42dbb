/**
 * Where a request target with dot segments is sent (server/http/request-listener.ts,
 * dotSegmentTarget): the path the WHATWG parser (Next, browsers, proxies) resolves it to, on
 * this host; nowhere (404) when that path would name another host.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotSegmentTarget } from '../../../server/http/request-listener';

describe('dotSegmentTarget', () => {
  it.each([
    ['/x/..', '/'],
    ['/x/../', '/'],
    ['/x/%2e%2e', '/'],
    ['/x/.%2E', '/'],
    ['/x/%2E.', '/'],
    ['/x/%2e', '/x/'],
    ['/console/..', '/'],
    ['/slug-abcdefghij/..', '/'],
    ['/./slug-abcdefghij', '/slug-abcdefghij'],
    ['/x\\..\\y', '/y'],
    ['/x/..?a=1&b=/..', '/?a=1&b=/..'],
    ['/..', '/'],
    ['/a/b/../../..', '/'],
    ['/x#/..', '/x'],
    ['/#/..', '/'],
    ['/x/..#y', '/'],
    ['/x?q#/..', '/x?q'],
  ])('sends %s to %s', (url, location) => {
    expect(dotSegmentTarget(url)).toBe(location);
  });

  it.each(['/', '/x', '/x/..x', '/x/...', '/x/%2e%2e%2e', '/x?y=/..', '/slug-abcdefghij'])('leaves %s alone', (url) => {
    expect(dotSegmentTarget(url)).toBeUndefined();
  });

  it.each([
    '/x/..//evil.example',
    '/\\evil.example/..',
    '/\\..',
    '//evil.example/..',
    '/.//evil.example',
    'http://h/x/..',
    '/x/../\u00e9',
  ])('refuses %s', (url) => {
    expect(dotSegmentTarget(url)).toBeNull();
  });

  it('resolves as the WHATWG parser does, and only to a path of this host', () => {
    const segment = fc.constantFrom('', '.', '..', '%2e', '%2E%2e', '.%2e', 'a', 'b', '..a', 'x.y', '%2f');
    const separator = fc.constantFrom('/', '\\');
    fc.assert(
      fc.property(fc.array(fc.tuple(separator, segment), { minLength: 1, maxLength: 6 }), (parts) => {
        const path = `/${parts.map(([sep, seg], i) => (i === 0 ? seg : sep + seg)).join('')}`;
        const resolved = dotSegmentTarget(path);
        if (resolved === undefined) return;
        let whatwg: URL | null = null;
        try {
          whatwg = new URL(path, 'http://h.example/');
        } catch {
          // `//..` and the like name a host the parser refuses: not a path of this host either.
        }
        const here = whatwg !== null && whatwg.host === 'h.example' && !whatwg.pathname.startsWith('//');
        expect(here, path).toBe(resolved !== null);
        if (resolved !== null) expect(whatwg?.pathname, path).toBe(resolved);
      }),
    );
  });
});
