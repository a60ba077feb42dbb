/**
 * A Node request's headers seen through the `get(name)` that authentication and the procedures
 * use (server/admission/admit.ts `RequestHeaders`), without copying them into a fetch `Headers`.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHeaders } from '../admission/admit';

export function nodeHeaderView(req: IncomingMessage): RequestHeaders {
  return {
    get(name: string) {
      const value = req.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
