import type { Account } from './account';

/**
 * The console session cookie's name. On the model floor because two floors send it: the console
 * (server/console/context.ts sets and reads it) and the runtime (server/runtime/next-warm-up.ts
 * sends one with its warm-up request, so Next compiles the signed-in path before a user's).
 */
export const SESSION_COOKIE = 'dp_console';

/**
 * A live console session as the database holds it (server/data/sessions.ts reads it): the
 * API token it was opened with, its CSRF token, when it ends and its account. The cookie value
 * itself is never stored (server/console/session-store.ts keeps only its keyed hash).
 */
export interface SessionRecord {
  tokenId: string;
  csrfToken: string;
  /** ISO 8601. */
  expiresAt: string;
  account: Account;
}
