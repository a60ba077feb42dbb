/**
 * Where sign-in sends the browser next: the console page it asked for before being sent to
 * the sign-in form. Only a path of the console on this origin is accepted (never another site,
 * a scheme-relative `//host` or a path that climbs out of /console); anything else gives /console.
 */
export const CONSOLE_HOME = '/console';

/** The path and query of the console page requested, set by proxy.ts on every console request. */
export const REQUESTED_PATH_HEADER = 'x-console-requested-path';

const BASE = 'http://console.invalid';

export function safeReturnPath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2048 || !raw.startsWith('/console')) return CONSOLE_HOME;
  // Backslashes and control characters are read differently by browsers: refused, not repaired.
  if (/[\\\u0000-\u001f\u007f\s]/.test(raw)) return CONSOLE_HOME;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return CONSOLE_HOME;
  }
  if (url.origin !== BASE) return CONSOLE_HOME;
  if (url.pathname !== CONSOLE_HOME && !url.pathname.startsWith(`${CONSOLE_HOME}/`)) return CONSOLE_HOME;
  if (url.pathname.startsWith('//')) return CONSOLE_HOME;
  return `${url.pathname}${url.search}`;
}

/** The sign-in page's address that returns to `path` afterwards. */
export function signInPath(path: string | null): string {
  const back = safeReturnPath(path);
  return back === CONSOLE_HOME ? CONSOLE_HOME : `${CONSOLE_HOME}?next=${encodeURIComponent(back)}`;
}
