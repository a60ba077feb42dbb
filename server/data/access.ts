import { isoTimestamp, statement, type StatementRunner } from '../../db/statements';
import { ACCOUNT_COLUMNS, accountOf, type Account, type AccountRow } from '../model/account';
import { LIMITS, type LimitName } from '../model/rate-classes';

/**
 * The access aggregate's rows: accounts, their API tokens and the console sessions opened with
 * them. One row type per table and one mapper each; SQL only (the rules, such as five active
 * tokens or the handle's syntax, are server/services/access/tokens.ts's and accounts.ts's).
 */

// Accounts ------------------------------------------------------------------------------------

const LIVE_HANDLE = 'lower(a.handle) = lower($1) AND a.deleted_at IS NULL';

const FIND_ACCOUNT = statement('account_by_handle', `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE ${LIVE_HANDLE}`);

/** The live account of this handle (case-insensitive, as handles are unique), or null. */
export async function findLiveAccount(db: StatementRunner, handle: string): Promise<Account | null> {
  const [row] = await db.run<AccountRow>(FIND_ACCOUNT, [handle]);
  return row ? accountOf(row) : null;
}

const INSERT_ACCOUNT = statement(
  'account_insert',
  `INSERT INTO accounts AS a (id, handle, is_admin, is_moderated, ${LIMITS.map((l) => l.name).join(', ')}, created_at)
   VALUES ($1, $2, $3, $4, ${LIMITS.map((_, i) => `$${i + 5}`).join(', ')}, now())
   ON CONFLICT (lower(handle)) WHERE deleted_at IS NULL DO NOTHING
   RETURNING ${ACCOUNT_COLUMNS}`,
);

/** A new account, or null when a live account already has the handle (any case). */
export async function insertAccount(
  db: StatementRunner,
  account: Omit<Account, 'id'> & { id: string },
): Promise<Account | null> {
  const [row] = await db.run<AccountRow>(INSERT_ACCOUNT, [
    account.id,
    account.handle,
    account.isAdmin,
    account.isModerated,
    ...LIMITS.map((l) => account[l.field]),
  ]);
  return row ? accountOf(row) : null;
}

const UPDATE_ACCOUNT = statement(
  'account_update',
  `UPDATE accounts a SET
     is_moderated = coalesce($2, a.is_moderated),
     is_admin = coalesce($3, a.is_admin),
     ${LIMITS.map((l, i) => `${l.name} = coalesce($${i + 4}, a.${l.name})`).join(',\n     ')}
   WHERE ${LIVE_HANDLE}
   RETURNING ${ACCOUNT_COLUMNS}`,
);

/** Changes what is given (an absent flag or limit stays); null when no live account has the handle. */
export async function updateAccountRow(
  db: StatementRunner,
  handle: string,
  change: { isModerated?: boolean; isAdmin?: boolean; limits: Partial<Record<LimitName, number>> },
): Promise<Account | null> {
  const [row] = await db.run<AccountRow>(UPDATE_ACCOUNT, [
    handle,
    change.isModerated ?? null,
    change.isAdmin ?? null,
    ...LIMITS.map((l) => change.limits[l.name] ?? null),
  ]);
  return row ? accountOf(row) : null;
}

/**
 * Deletes the live account of the handle in one statement: the account row, all its tokens
 * revoked, its console sessions gone; returns what it showed publicly (its published
 * articles' snapshot slugs and its stored files), so the caller can announce those paths.
 */
const DELETE_ACCOUNT = statement(
  'account_delete',
  `WITH gone AS (
     UPDATE accounts a SET deleted_at = now() WHERE ${LIVE_HANDLE} RETURNING ${ACCOUNT_COLUMNS}),
   revoked AS (
     UPDATE api_tokens SET revoked_at = now() WHERE account_id IN (SELECT id FROM gone) AND revoked_at IS NULL),
   ended AS (
     DELETE FROM console_sessions WHERE account_id IN (SELECT id FROM gone))
   SELECT gone.*,
          (SELECT coalesce(jsonb_agg(jsonb_build_object('public_id', p.public_id, 'slug', p.published_version->>'slug')), '[]')
             FROM posts p WHERE p.account_id = gone.id AND p.deleted_at IS NULL AND p.published_version IS NOT NULL) AS articles,
          (SELECT coalesce(jsonb_agg(m.id), '[]') FROM media m WHERE m.account_id = gone.id) AS media
     FROM gone`,
);

export async function deleteAccountRow(
  db: StatementRunner,
  handle: string,
): Promise<{ account: Account; articles: { public_id: string; slug: string }[]; media: string[] } | null> {
  const [row] = await db.run<AccountRow & { articles: { public_id: string; slug: string }[]; media: string[] }>(
    DELETE_ACCOUNT,
    [handle],
  );
  return row ? { account: accountOf(row), articles: row.articles, media: row.media } : null;
}

// Tokens --------------------------------------------------------------------------------------

/** A token as the console and the CLI show it: never its secret, only its last four characters. */
export interface TokenRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  lastFour: string;
  /** ISO 8601. */
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const TOKEN_COLUMNS = 't.id, t.account_id, t.name, t.prefix, t.last_four, t.created_at, t.last_used_at, t.revoked_at';

interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  last_four: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function tokenOf(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    lastFour: row.last_four,
    createdAt: isoTimestamp(row.created_at),
    lastUsedAt: row.last_used_at ? isoTimestamp(row.last_used_at) : null,
    revokedAt: row.revoked_at ? isoTimestamp(row.revoked_at) : null,
  };
}

const LIST_TOKENS = statement(
  'tokens_of_account',
  `SELECT ${TOKEN_COLUMNS} FROM api_tokens t WHERE t.account_id = $1 ORDER BY t.created_at, t.id`,
);

export async function listTokenRows(db: StatementRunner, accountId: string): Promise<TokenRecord[]> {
  return (await db.run<TokenRow>(LIST_TOKENS, [accountId])).map(tokenOf);
}

const FIND_TOKEN = statement(
  'token_by_id',
  `SELECT ${TOKEN_COLUMNS} FROM api_tokens t WHERE t.id = $1 AND ($2::uuid IS NULL OR t.account_id = $2)`,
);

/** The token with this id (of this account, when one is given), or null. */
export async function findTokenRow(db: StatementRunner, id: string, accountId?: string): Promise<TokenRecord | null> {
  const [row] = await db.run<TokenRow>(FIND_TOKEN, [id, accountId ?? null]);
  return row ? tokenOf(row) : null;
}

/** Locks the account's row until the transaction ends: token creations of one account take turns. */
const LOCK_ACCOUNT = statement('account_lock', 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE');

export async function lockAccount(tx: StatementRunner, accountId: string): Promise<boolean> {
  return (await tx.run(LOCK_ACCOUNT, [accountId])).length > 0;
}

/**
 * A new token unless the account already has `$7` active ones: one statement, run after
 * `lockAccount` in the same transaction (so its count sees every creation committed before).
 */
const INSERT_TOKEN = statement(
  'token_insert',
  `INSERT INTO api_tokens AS t (id, account_id, name, secret_hash, prefix, last_four, created_at)
   SELECT $1, $2, $3, $4, $5, $6, now()
    WHERE (SELECT count(*) FROM api_tokens WHERE account_id = $2 AND revoked_at IS NULL) < $7
   RETURNING ${TOKEN_COLUMNS}`,
);

export async function insertTokenRow(
  tx: StatementRunner,
  token: { id: string; accountId: string; name: string; secretHash: Buffer; prefix: string; lastFour: string },
  maxActive: number,
): Promise<TokenRecord | null> {
  const [row] = await tx.run<TokenRow>(INSERT_TOKEN, [
    token.id,
    token.accountId,
    token.name,
    token.secretHash,
    token.prefix,
    token.lastFour,
    maxActive,
  ]);
  return row ? tokenOf(row) : null;
}

/** A new secret for an active token; its console sessions end with the old one. */
const REISSUE_TOKEN = statement(
  'token_reissue',
  `WITH t AS (
     UPDATE api_tokens t SET secret_hash = $2, last_four = $3, last_used_at = NULL
      WHERE t.id = $1 AND t.revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}),
   ended AS (DELETE FROM console_sessions WHERE token_id IN (SELECT id FROM t))
   SELECT * FROM t`,
);

export async function reissueTokenRow(
  db: StatementRunner,
  id: string,
  secretHash: Buffer,
  lastFour: string,
): Promise<TokenRecord | null> {
  const [row] = await db.run<TokenRow>(REISSUE_TOKEN, [id, secretHash, lastFour]);
  return row ? tokenOf(row) : null;
}

/** Revoked (again: the first revocation's time stays); its console sessions end. */
const REVOKE_TOKEN = statement(
  'token_revoke',
  `WITH t AS (
     UPDATE api_tokens t SET revoked_at = coalesce(t.revoked_at, now()) WHERE t.id = $1 RETURNING ${TOKEN_COLUMNS}),
   ended AS (DELETE FROM console_sessions WHERE token_id IN (SELECT id FROM t))
   SELECT * FROM t`,
);

export async function revokeTokenRow(db: StatementRunner, id: string): Promise<TokenRecord | null> {
  const [row] = await db.run<TokenRow>(REVOKE_TOKEN, [id]);
  return row ? tokenOf(row) : null;
}

// Console sessions -----------------------------------------------------------------------------

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

export interface SessionRecord {
  tokenId: string;
  csrfToken: string;
  /** ISO 8601. */
  expiresAt: string;
  account: Account;
}

export async function findSessionRow(db: StatementRunner, idHash: Buffer): Promise<SessionRecord | null> {
  const [row] = await db.run<AccountRow & { csrf_token: string; expires_at: string; token_id: string }>(FIND_SESSION, [
    idHash,
  ]);
  if (!row) return null;
  return {
    tokenId: row.token_id,
    csrfToken: row.csrf_token,
    expiresAt: isoTimestamp(row.expires_at),
    account: accountOf(row),
  };
}

const CLOSE_SESSION = statement('session_close', 'DELETE FROM console_sessions WHERE id_hash = $1');

export async function deleteSession(db: StatementRunner, idHash: Buffer): Promise<void> {
  await db.run(CLOSE_SESSION, [idHash]);
}
