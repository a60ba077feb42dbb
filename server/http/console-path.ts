/**
 * The console's paths as Next's matchers see them (proxy.ts, next.config.mjs headers) are the raw
 * text: `/%63onsole` does not match `/console`, so it gets neither the console's CSP nor its
 * `no-store`, and Next's 404 for it is cacheable for a year. A path that is the console's only
 * once percent-decoded is such a disguise; the request listener answers it 404 with `no-store`.
 */
export function isDisguisedConsolePath(pathname: string): boolean {
  if (!pathname.includes('%')) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  return isConsole(decoded) && !isConsole(pathname);
}

function isConsole(pathname: string): boolean {
  const lower = pathname.toLowerCase();
  return lower === '/console' || lower.startsWith('/console/');
}
