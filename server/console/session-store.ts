import 'server-only';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StatementRunner } from '../../db/statements';
import { deleteSession, findSessionRow, insertSession } from '../data/sessions';
import { derivedKey } from '../foundation/secrets';
import type { Authenticated } from '../model/account';

/**
 * Console sessions. The browser holds only an opaque random
 * value; PostgreSQL holds its keyed hash, the account and the API token it was opened with.
 * The token itself is never stored here nor sent back: after sign-in the server works from
 * the session row alone.
 *
 * Every lookup joins the token and the account, so a session dies the moment its token is
 * revoked or reissued (tokens.ts also deletes the rows) or the account is deleted.
 */
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
  db: StatementRunner,
  auth: Authenticated,
): Promise<{ cookieValue: string; expiresAt: Date }> {
  const cookieValue = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000);
  // Expired rows of anyone are swept in the same statement, which keeps the table small without a timer.
  await insertSession(db, {
    idHash: hashSessionValue(cookieValue),
    accountId: auth.account.id,
    tokenId: auth.tokenId,
    csrfToken,
    expiresAt,
  });
  return { cookieValue, expiresAt };
}

/** The live session of a cookie: its token not revoked, its account not deleted, not expired. */
export async function findSession(
  db: StatementRunner,
  cookieValue: string | undefined,
): Promise<ConsoleSession | null> {
  if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return null;
  const row = await findSessionRow(db, hashSessionValue(cookieValue));
  if (!row) return null;
  return {
    csrfToken: row.csrfToken,
    expiresAt: new Date(row.expiresAt),
    auth: { tokenId: row.tokenId, account: row.account },
  };
}

export async function closeSession(db: StatementRunner, cookieValue: string | undefined): Promise<void> {
  if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return;
  await deleteSession(db, hashSessionValue(cookieValue));
}

export function csrfMatches(session: ConsoleSession, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrfToken, 'utf8');
  const b = Buffer.from(submitted, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
