import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * What Next answers that is not a page or an asset is never kept by a shared cache. Next serves
 * its prerendered 404 page with `s-maxage=31536000` (a year), and reaches it through paths
 * that are not the console's to a proxy's eye (`/console/%2e%2e/_not-found`, `/_not-found`);
 * its trailing-slash redirects carry no Cache-Control at all (heuristically cacheable). A copy
 * kept under such a path is one no purge names. So every redirect and error Next writes leaves
 * with `Cache-Control: no-store`, whatever Next set; 304s keep theirs (an asset's revalidation).
 *
 * The same for anything Next answers to a target with a query string (`queried`): none of its
 * pages or assets outside the console reads one (the home page, `/_next/static/…`), so `/?1`,
 * `/?2`… are each the same page that a cache keying on the whole target would keep for a year
 * under a key of its own, one for every query a client invents. (The shipped Varnish drops the
 * query for public pages; a CDN may not.) The console's pages, which do read theirs, are
 * `no-store` already.
 */
const NEVER_STORED = 'no-store';

export function neverStoreRedirectsOrErrors(res: ServerResponse, { queried }: { queried: boolean }): void {
  const writeHead = res.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if ((status >= 300 && status !== 304) || (queried && status !== 304)) {
      for (const arg of rest)
        if (arg && typeof arg === 'object') dropCacheControl(arg as OutgoingHttpHeaders | unknown[]);
      this.setHeader('cache-control', NEVER_STORED);
    }
    return writeHead.call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

/** Removes Cache-Control from the headers handed to writeHead (an object, or a flat [name, value, …] list). */
function dropCacheControl(headers: OutgoingHttpHeaders | unknown[]): void {
  if (Array.isArray(headers)) {
    for (let i = headers.length - 2; i >= 0; i -= 2)
      if (String(headers[i]).toLowerCase() === 'cache-control') headers.splice(i, 2);
    return;
  }
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'cache-control') delete headers[name];
}
