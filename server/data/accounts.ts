import { statement, type StatementRunner } from '../../db/statements';
import { ACCOUNT_COLUMNS, accountOf, type Account, type AccountRow } from '../model/account';
import { LIMITS, type LimitName } from '../model/rate-classes';

/**
 * The accounts' rows. Their row shape and its one mapper are the model's (server/model/account.ts:
 * the admission and the sessions select the same columns); SQL only here. The rules, such as the
 * handle's syntax, are server/services/access/accounts.ts's.
 */

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

/** Locks the account's row until the transaction ends: token creations of one account take turns. */
const LOCK_ACCOUNT = statement('account_lock', 'SELECT id FROM accounts WHERE id = $1 FOR UPDATE');

/** False when no account has the id. */
export async function lockAccount(tx: StatementRunner, accountId: string): Promise<boolean> {
  return (await tx.run(LOCK_ACCOUNT, [accountId])).length > 0;
}
