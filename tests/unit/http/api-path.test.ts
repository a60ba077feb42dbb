/**
 * The one reading of a REST path (server/http/api-path.ts): the forms two URL parsers read
 * differently are refused, every other path reads the same as the WHATWG parser the adapter uses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, apiPath, apiRouteTemplate, matchApiRoute } from '../../../server/http/api-path';

describe('apiPath', () => {
  it.each([
    '/api/v1/author/posts/x\\..#/unpublish',
    '/api/v1/author/posts/x/../y',
    '/api/v1/author/posts/%2e%2E',
    '/api/v1/author/./posts',
    '/api/v1/author//posts',
    '/api/v1/author/posts?x=1#y',
    '/api/v1/author/posts/.%2e/me',
  ])('refuses %s', (url) => {
    expect(apiPath(url)).toBeNull();
  });

  it.each([
    ['/api/v1/author', '', ''],
    ['/api/v1/author/', '', ''],
    ['/api/v1/author?x=1', '', 'x=1'],
    ['/api/v1/author/posts/', '/posts', ''],
    ['/api/v1/author/media/', '/media', ''],
    ['/api/v1/author/posts?limit=2&cursor=a.b', '/posts', 'limit=2&cursor=a.b'],
    ['/api/v1/author/posts/..x/publish', '/posts/..x/publish', ''],
  ])('reads %s as %j', (url, path, query) => {
    expect(apiPath(url)).toEqual({ path, query });
  });

  it('gives the path the WHATWG parser gives, for any path it accepts', () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%\\#-]{0,6}$/);
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), (segments) => {
        const url = `${API_PREFIX}/${segments.join('/')}`;
        const routed = apiPath(url);
        if (routed === null) return;
        accepted++;
        const parsed = new URL(`http://127.0.0.1${url}`).pathname;
        expect(`${API_PREFIX}${routed.path}`).toBe(parsed.replace(/\/$/, ''));
      }),
    );
    // Refused forms are skipped: the property must still have held for paths that were read.
    expect(accepted).toBeGreaterThan(0);
  });

  it('templates a HEAD as its GET', () => {
    expect(apiRouteTemplate('HEAD', '/posts/abc')).toBe(`${API_PREFIX}/posts/{id}`);
    expect(apiRouteTemplate('POST', '/posts/abc/unpublish')).toBe(`${API_PREFIX}/posts/{id}/unpublish`);
    expect(apiRouteTemplate('PUT', '/posts')).toBeUndefined();
  });

  it('matches a path to its route with the path parameters as written, as the adapter does', () => {
    const matched = matchApiRoute('POST', '/posts/a%20b/publish');
    expect(matched?.route.procedure).toBe('posts.publish');
    expect(matched?.params).toEqual({ id: 'a%20b' });
    expect(matchApiRoute('GET', '/me')).toMatchObject({ template: `${API_PREFIX}/me`, params: {} });
    // Routes are exact: another case is no route (404), so no second spelling of one exists.
    expect(matchApiRoute('GET', '/POSTS/x')).toBeUndefined();
    expect(matchApiRoute('GET', '/ME')).toBeUndefined();
    expect(matchApiRoute('POST', '/posts/x/Publish')).toBeUndefined();
    expect(matchApiRoute('DELETE', '/posts')).toBeUndefined();
    expect(matchApiRoute('GET', '/posts/x/y')).toBeUndefined();
  });
});
