/**
 * Next loads the code of an App Router route the first time it is requested, and that load
 * holds the event loop: up to 2 s for a console page on this machine, during which every other
 * request waits (a health check included, which takes the instance out of a proxy's rotation).
 * So the launcher requests every route of the build once, over loopback, before it reports
 * healthy: `.next/server/app-paths-manifest.json` lists them (new routes are covered without a
 * list here); a dynamic segment gets a well-formed placeholder. Without a session, a page
 * answers a redirect to sign in and a preview 401, but the route's code is loaded by then.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SESSION_COOKIE } from '../model/session';
import http from 'node:http';
import path from 'node:path';

const PLACEHOLDER_ID = '00000000-0000-4000-8000-000000000000';

/** The request paths of the build's App Router routes (pages and route handlers). */
export function appRoutePaths(root: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, '.next/server/app-paths-manifest.json'), 'utf8')) as Record<
    string,
    string
  >;
  const paths = new Set<string>();
  for (const entry of Object.keys(manifest)) {
    const route = entry.replace(/\/(page|route)$/, '');
    // Next's own 404 page is loaded by the first path nothing else answers.
    const request = route === '/_not-found' ? '/console/warm-up-not-found' : route;
    if (request.startsWith('/_')) continue;
    paths.add(request.replace(/\[[^\]/]+\]/g, PLACEHOLDER_ID) || '/');
  }
  return [...paths].sort();
}

/** GETs each path once, one after the other, on this instance's own listener; failures are only logged. */
export async function warmUpRoutes(
  listener: { host: string; port: number },
  paths: string[],
  log: (line: Record<string, unknown> & { level: 'info' | 'notice' }) => void,
): Promise<void> {
  const started = Date.now();
  for (const route of paths) {
    try {
      await get(listener, route);
    } catch (err) {
      log({ level: 'notice', msg: 'warm-up request failed', route, error: String(err) });
    }
  }
  log({ level: 'info', msg: 'console routes loaded', routes: paths.length, ms: Date.now() - started });
}

function get(listener: { host: string; port: number }, route: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // A session cookie that names no session: the console looks it up, which opens its own
    // copy's database connections (an ORM per copy of the modules, runtime.ts) now rather
    // than on the first maintainer's request; the answer is the sign-in page all the same.
    const headers = { cookie: `${SESSION_COOKIE}=warm-up-${randomBytes(16).toString('hex')}` };
    const req = http.get({ host: listener.host, port: listener.port, path: route, headers }, (res) => {
      res.resume();
      res.once('end', resolve);
      res.once('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    req.once('error', reject);
  });
}
