/**
 * Metric labels (server/http/route-template.ts) are a fixed set: the console's are exactly its
 * pages and route handlers under app/console, and any other path is `*`.
 */
import { readdirSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../../server/api/routes';
import { API_PREFIX, apiPath, apiRouteTemplate } from '../../../server/http/api-path';
import {
  CONSOLE_ROUTES,
  maskIds,
  noteMatchedRoute,
  requestRoute,
  routeTemplate,
} from '../../../server/http/route-template';

const APP = path.resolve(import.meta.dirname, '../../../app');

function appRoutes(dir: string, prefix: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const name = /^\[.+\]$/.test(entry.name) ? '{id}' : entry.name;
      out.push(...appRoutes(path.join(dir, entry.name), `${prefix}/${name}`));
    } else if (/^(page|route)\.tsx?$/.test(entry.name)) out.push(prefix);
  }
  return out;
}

describe('route templates', () => {
  it('know every console page and route handler, and nothing else', () => {
    expect([...CONSOLE_ROUTES].sort()).toEqual(appRoutes(path.join(APP, 'console'), '/console').sort());
  });

  it.each([
    ['/console/articles/0b9d6c8e-0000-4000-8000-000000000000', '/console/articles/{id}'],
    ['/console/articles/new/', '/console/articles/new'],
    ['/console/anything-at-all', '/console/*'],
    ['/console/articles/a/b/c', '/console/*'],
    ['/api/v1/author/posts/x\\..#/unpublish', '/api/v1/author/*'],
    ['/api/v1/author/media/', '/api/v1/author/media'],
    ['/api/v1/author/posts/abc/', '/api/v1/author/posts/{id}'],
  ])('%s is labelled %s', (pathname, template) => {
    expect(routeTemplate('GET', pathname)).toBe(template);
  });
});

/**
 * REST labels are remembered by the path with its ids masked, so the routes' patterns run once
 * per shape of path. Whatever was asked before, the label of a path must stay the one its own
 * route match gives.
 */
describe('REST route templates', () => {
  const procedurePaths = API_ROUTES.filter((r) => r.procedure).map((r) => r.path);
  const segment = fc.oneof(
    fc.uuid(),
    fc.uuid().map((id) => id.toUpperCase()),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
    fc.uuid().map((id) => `${id}x`),
  );
  const restPath = fc
    .tuple(
      fc.constantFrom(...procedurePaths),
      fc.array(segment, { minLength: 4, maxLength: 4 }),
      fc.constantFrom('', '/', '//', '/extra', `/${'0b9d6c8e-0000-4000-8000-000000000000'}`),
    )
    .map(([template, values, tail]) => {
      let i = 0;
      return API_PREFIX + template.replace(/\{[^}]+\}/g, () => values[i++]!) + tail;
    });
  const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
  const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE');

  it('are the route the path itself matches, and paths of the same shape with other ids match alike', () => {
    fc.assert(
      fc.property(method, restPath, fc.array(fc.uuid(), { minLength: 1, maxLength: 8 }), (m, pathname, ids) => {
        const expected = (routed: string) => {
          const path = apiPath(routed);
          return (path && apiRouteTemplate(m, path.path)) ?? `${API_PREFIX}/*`;
        };
        expect(routeTemplate(m, pathname)).toBe(expected(pathname));
        // A path of the same shape with other ids: the same log route, the same label.
        let i = 0;
        const sibling = pathname.replace(UUID_ANYWHERE, () => ids[i++ % ids.length]!);
        expect(maskIds(sibling)).toBe(maskIds(pathname));
        expect(routeTemplate(m, sibling)).toBe(expected(sibling));
        expect(routeTemplate(m, sibling)).toBe(routeTemplate(m, pathname));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the label of a finished request', () => {
  it('is the route the REST handler matched when it noted one, else the template of the path', () => {
    const noted = new ServerResponse(new IncomingMessage(new Socket()));
    noteMatchedRoute(noted, `${API_PREFIX}/posts/{id}`);
    // The path alone would be `*`: the noted match wins.
    expect(requestRoute(noted, 'GET', `${API_PREFIX}/nowhere`)).toBe(`${API_PREFIX}/posts/{id}`);
    const other = new ServerResponse(new IncomingMessage(new Socket()));
    expect(requestRoute(other, 'GET', `${API_PREFIX}/nowhere`)).toBe(`${API_PREFIX}/*`);
    expect(requestRoute(other, 'GET', '/api/health')).toBe('/api/health');
  });
});
