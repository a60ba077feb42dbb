import type { Account } from './account';

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
