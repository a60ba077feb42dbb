/**
 * Console pages get a Content-Security-Policy with a fresh script nonce per request: only the
 * scripts Next renders into the page (they carry the nonce, and what they load is trusted
 * through 'strict-dynamic') may run, so injected markup cannot execute even inline. Next reads
 * the nonce from the CSP on the request and stamps it on its own scripts; every console page is
 * rendered per request, which nonces need.
 *
 * The preview routes are not matched: they set their own sandboxing policy and must stay
 * frameable by the console. The other console headers (X-Frame-Options, Cache-Control) are in
 * next.config.mjs.
 */
import { NextResponse, type NextRequest } from 'next/server';
import { REQUESTED_PATH_HEADER } from '@/server/console/return-path';

function consoleCsp(nonce: string, dev = process.env.NODE_ENV === 'development'): string {
  return [
    "default-src 'self'",
    // React's development build needs eval for its error overlays; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    // Styles stay permissive: style attributes from React components have no nonce, and
    // without script an injected style can at worst restyle the page.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64');
  const csp = consoleCsp(nonce);
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', csp);
  // The page asked for, so sign-in can return to it (server/console/context.ts). Always ours:
  // a value the browser sent under this name is replaced.
  headers.set(REQUESTED_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('content-security-policy', csp);
  return response;
}

export const config = {
  matcher: ['/console', '/console/((?!preview(?:/|$)).*)'],
};
