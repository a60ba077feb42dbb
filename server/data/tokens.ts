import { isoTimestamp, statement, type StatementRunner } from '../../db/statements';
import type { TokenRecord } from '../model/token';

/**
 * The API tokens' rows (`api_tokens`). SQL only: the rules, such as five active tokens or what a
 * secret looks like, are server/services/access/tokens.ts's. The columns are read under the
 * record's own names (server/model/token.ts), so the one mapper only makes the timestamps ISO 8601.
 * The secret's digest is written here and never selected (server/admission/ matches it).
 */

const TOKEN_COLUMNS = 't.id, t.name, t.prefix, t.last_four, t.created_at, t.last_used_at, t.revoked_at';

/** A token as its statements return it: the record, its timestamps still PostgreSQL's text. */
type TokenRow = TokenRecord;

function tokenOf(row: TokenRow): TokenRecord {
  return {
    ...row,
    created_at: isoTimestamp(row.created_at),
    last_used_at: row.last_used_at === null ? null : isoTimestamp(row.last_used_at),
    revoked_at: row.revoked_at === null ? null : isoTimestamp(row.revoked_at),
  };
}

const LIST_TOKENS = statement(
  'tokens_of_account',
  `SELECT ${TOKEN_COLUMNS} FROM api_tokens t WHERE t.account_id = $1 ORDER BY t.created_at, t.id`,
);

/** The account's tokens, revoked ones too, oldest first. */
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

/**
 * A new token unless the account already has `$7` active ones: one statement, run after
 * `lockAccount` (server/data/accounts.ts) in the same transaction, so its count sees every
 * creation committed before.
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
