import { API_PREFIX, apiRouteTemplate } from './rest-api';
import { canonicalSegment } from './public-page';
import { isUuid } from '../uuid';

/**
 * The route template of a request, for metric labels: a small, fixed set of values whatever
 * the paths clients send (ids, slugs and unknown paths never become label values).
 */
const FIXED = new Set([
  '/',
  '/api/health',
  '/api/metrics',
  `${API_PREFIX}/openapi.json`,
  `${API_PREFIX}/media`,
  '/favicon.ico',
  '/api/reader-events',
]);

export function routeTemplate(method: string, pathname: string): string {
  if (FIXED.has(pathname)) return pathname;
  if (pathname.startsWith(`${API_PREFIX}/`)) {
    return apiRouteTemplate(method, pathname) ?? `${API_PREFIX}/*`;
  }
  if (pathname.startsWith('/api/media/')) return '/api/media/{id}';
  if (pathname.startsWith('/api/reader/')) return '/api/reader/{public_id}/{kind}';
  if (pathname.startsWith('/_next/')) return '/_next/*';
  if (pathname === '/console' || pathname.startsWith('/console/')) {
    const parts = pathname
      .split('/')
      .slice(2, 5)
      .map((p) => (isUuid(p) ? '{id}' : /^[a-z][a-z-]{0,30}$/.test(p) ? p : '*'));
    return ['/console', ...parts].join('/').replace(/\/$/, '');
  }
  if (canonicalSegment(pathname) !== null) return '/{slug}-{public_id}';
  return 'other';
}
