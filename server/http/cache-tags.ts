/**
 * The tag a CDN that purges by tag (Fastly's `Surrogate-Key`, Cloudflare's `Cache-Tag`) files a
 * response under: `article-<public_id>` on a public page, `media-<uuid>` on a stored file. The
 * service itself purges by path (CACHE_PURGE_URLS), which needs no tag.
 */
export function cacheTagHeaders(tag: string): Record<string, string> {
  return { 'surrogate-key': tag, 'cache-tag': tag };
}
