import { openApiEtag, openApiJson } from '@/server/api/openapi/document';

/**
 * The OpenAPI document (CONTRACT "Paths outside the REST prefix"): no auth, because it holds
 * nothing secret and integrators fetch it from tools. A static segment, so it wins over the
 * `[...trpc]` catch-all. The document only changes with a deploy: a short max-age plus an
 * ETag lets tools revalidate cheaply without ever serving a stale contract for long.
 */
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const CACHE_CONTROL = 'public, max-age=300, must-revalidate';

export function GET(req: Request): Response {
  const headers = { 'cache-control': CACHE_CONTROL, etag: openApiEtag };
  if (matchesEtag(req.headers.get('if-none-match'))) return new Response(null, { status: 304, headers });
  return new Response(openApiJson, { status: 200, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } });
}

function matchesEtag(header: string | null): boolean {
  if (!header) return false;
  return header === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === openApiEtag);
}
