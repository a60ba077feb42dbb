import 'server-only';

/**
 * Whether a request to a console route handler was sent by the console's own pages. Next checks
 * the Origin of Server Actions but not of route handlers (the upload and the live preview), so
 * they ask here, with one rule: browsers send Origin on every POST, so a missing, opaque
 * (`null`, from a sandboxed frame or a redirect) or foreign Origin is refused. The session's
 * CSRF token is checked by each route on top of this.
 */
export function isSameOrigin(headers: Headers): boolean {
  const origin = headers.get('origin');
  const host = headers.get('host');
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false; // `null` and other unparsable values
  }
}
