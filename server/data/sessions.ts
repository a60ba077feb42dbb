import { isoTimestamp, statement, type StatementRunner } from '../../db/statements';
import { ACCOUNT_COLUMNS, accountOf, type AccountRow } from '../model/account';
import type { SessionRecord } from '../model/session';

/**
 * The console sessions' rows (`console_sessions`). SQL only: the cookie, its hash and the CSRF
 * check are server/console/session-store.ts's. Revoking or reissuing a token and deleting an
 * account end sessions in their own statements (tokens.ts, accounts.ts).
 */

/** A new session row; expired rows of anyone are swept in the same statement (no timer needed). */
const OPEN_SESSION = statement(
  'session_open',
  `WITH swept AS (DELETE FROM console_sessions WHERE expires_at < now())
   INSERT INTO console_sessions (id_hash, account_id, token_id, csrf_token, created_at, expires_at)
   VALUES ($1, $2, $3, $4, now(), $5)`,
);

export async function insertSession(
  db: StatementRunner,
  session: { idHash: Buffer; accountId: string; tokenId: string; csrfToken: string; expiresAt: Date },
): Promise<void> {
  await db.run(OPEN_SESSION, [
    session.idHash,
    session.accountId,
    session.tokenId,
    session.csrfToken,
    session.expiresAt,
  ]);
}

/** A live session: its token not revoked, its account not deleted, not expired. */
const FIND_SESSION = statement(
  'session_find',
  `SELECT s.csrf_token, s.expires_at, s.token_id, ${ACCOUNT_COLUMNS}
     FROM console_sessions s
     JOIN api_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
     JOIN accounts a ON a.id = s.account_id AND a.deleted_at IS NULL
    WHERE s.id_hash = $1 AND s.expires_at > now()`,
);

type SessionRow = AccountRow & { csrf_token: string; expires_at: string; token_id: string };

function sessionOf(row: SessionRow): SessionRecord {
  return {
    tokenId: row.token_id,
    csrfToken: row.csrf_token,
    expiresAt: isoTimestamp(row.expires_at),
    account: accountOf(row),
  };
}

export async function findSessionRow(db: StatementRunner, idHash: Buffer): Promise<SessionRecord | null> {
  const [row] = await db.run<SessionRow>(FIND_SESSION, [idHash]);
  return row ? sessionOf(row) : null;
}

const CLOSE_SESSION = statement('session_close', 'DELETE FROM console_sessions WHERE id_hash = $1');

export async function deleteSession(db: StatementRunner, idHash: Buffer): Promise<void> {
  await db.run(CLOSE_SESSION, [idHash]);
}
