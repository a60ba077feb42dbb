/**
 * Metric labels (server/http/route-template.ts) are a fixed set: the console's are exactly its
 * pages and route handlers under app/console, and any other path is `*`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ROUTES, routeTemplate } from '../../../server/http/route-template';

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
