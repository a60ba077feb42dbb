import 'server-only';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { derivedKey } from '../secrets';
import { ACCOUNT_COLUMNS, accountFromRow, type AccountRow, type Authenticated } from '../services/tokens';

/**
 * Console sessions. The browser holds only an opaque random
 * value; PostgreSQL holds its keyed hash, the account and the API token it was opened with.
 * The token itself is never stored here nor sent back: after sign-in the server works from
 * the session row alone.
 *
 * Every lookup joins the token and the account, so a session dies the moment its token is
 * revoked or reissued (tokens.ts also deletes the rows) or the account is deleted.
 */
export { SESSION_COOKIE } from './session-cookie';
/** An absolute lifetime: a console left signed in on a shared machine does not live for ever. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface ConsoleSession {
  auth: Authenticated;
  csrfToken: string;
  expiresAt: Date;
}

/** Keyed so a leaked table of hashes cannot be checked against guessed cookie values offline. */
function hashSessionValue(value: string): Buffer {
  return createHmac('sha256', derivedKey('console-session')).update(value, 'utf8').digest();
}

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export async function openSession(
  em: EntityManager,
  auth: Authenticated,
): Promise<{ cookieValue: string; expiresAt: Date }> {
  const cookieValue = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000);
  await sql(
    em,
    `INSERT INTO console_sessions (id_hash, account_id, token_id, csrf_token, created_at, expires_at)
     VALUES (?, ?, ?, ?, now(), ?)`,
    [hashSessionValue(cookieValue), auth.account.id, auth.tokenId, csrfToken, expiresAt],
  );
  // Expired rows of anyone are useless; sweeping at sign-in keeps the table small without a timer.
  await sql(em, `DELETE FROM console_sessions WHERE expires_at < now()`);
  return { cookieValue, expiresAt };
}

interface SessionRow extends AccountRow {
  csrf_token: string;
  expires_at: Date;
  token_id: string;
}

export async function findSession(em: EntityManager, cookieValue: string | undefined): Promise<ConsoleSession | null> {
  if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return null;
  const rows = await sql<SessionRow[]>(
    em,
    `SELECT s.csrf_token, s.expires_at, s.token_id, ${ACCOUNT_COLUMNS}
       FROM console_sessions s
       JOIN api_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
       JOIN accounts a ON a.id = s.account_id AND a.deleted_at IS NULL
      WHERE s.id_hash = ? AND s.expires_at > now()`,
    [hashSessionValue(cookieValue)],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    csrfToken: row.csrf_token,
    expiresAt: new Date(row.expires_at),
    auth: { tokenId: row.token_id, account: accountFromRow(row) },
  };
}

export async function closeSession(em: EntityManager, cookieValue: string | undefined): Promise<void> {
  if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return;
  await sql(em, `DELETE FROM console_sessions WHERE id_hash = ?`, [hashSessionValue(cookieValue)]);
}

/** Constant-time comparison of the form's CSRF token with the session's. */
export function csrfMatches(session: ConsoleSession, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrfToken, 'utf8');
  const b = Buffer.from(submitted, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
