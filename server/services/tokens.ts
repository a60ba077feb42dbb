import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql';
import { ApiTokenEntity, type Account, type ApiToken } from '../../db/entities';
import { invalid, notFound } from '../errors';
import { isUuid } from '../uuid';
import { LIMITS, limitFields, type LimitField, type LimitName } from './rate-classes';

/**
 * API tokens (contract: "Authentication"). A secret is `dp_live_` + 43 base62 characters
 * (256 bits of entropy). Only its SHA-256 is stored: with that much entropy a slow hash
 * adds nothing, and an index on the digest keeps authentication to one query. The row
 * found is still compared in constant time before it is trusted.
 */
export const TOKEN_PREFIX = 'dp_live_';
export const MAX_ACTIVE_TOKENS = 5;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (out.length < length) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function newSecret(): string {
  return TOKEN_PREFIX + base62(randomBytes(32), 43);
}

/** SHA-256 of the secret (UTF-8), one-shot: every authenticated request hashes its token. */
export function hashSecret(secret: string): Buffer {
  return hash('sha256', secret, 'buffer') as unknown as Buffer;
}

/** Shape check before touching the database: the prefix and the base62 body. */
export function looksLikeToken(secret: string): boolean {
  return /^dp_live_[0-9A-Za-z]{43}$/.test(secret);
}

export interface Authenticated {
  account: Pick<Account, 'id' | 'handle' | 'isAdmin' | 'isModerated' | LimitField>;
  tokenId: string;
}

/**
 * One round trip: find the live token of a live account and record its use. `last_used_at`
 * is written at most once a minute per token so hot read paths do not turn into writes.
 */
export async function authenticateSecret(em: EntityManager, secret: string): Promise<Authenticated | null> {
  if (!looksLikeToken(secret)) return null;
  const digest = hashSecret(secret);
  const rows = await sql<(AccountRow & { token_id: string; secret_hash: Buffer })[]>(
    em,
    `WITH hit AS (
       SELECT t.id AS token_id, t.secret_hash, ${ACCOUNT_COLUMNS}
         FROM api_tokens t JOIN accounts a ON a.id = t.account_id
        WHERE t.secret_hash = ? AND t.revoked_at IS NULL AND a.deleted_at IS NULL
     ), touch AS (
       UPDATE api_tokens SET last_used_at = now()
        WHERE id IN (SELECT token_id FROM hit)
          AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')
     )
     SELECT * FROM hit`,
    [digest],
  );
  const row = rows[0];
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), digest)) return null;
  return { tokenId: row.token_id, account: accountFromRow(row) };
}

/** The account columns an authenticated caller needs, selected from `accounts a`. */
export const ACCOUNT_COLUMNS = `a.id, a.handle, a.is_admin, a.is_moderated, ${LIMITS.map((l) => `a.${l.name}`).join(', ')}`;

/** The limits come as numbers, `daily_media_bytes` (bigint) as text. */
export type AccountRow = {
  id: string;
  handle: string;
  is_admin: boolean;
  is_moderated: boolean;
} & Record<LimitName, number | string>;

export function accountFromRow(row: AccountRow): Authenticated['account'] {
  return {
    id: row.id,
    handle: row.handle,
    isAdmin: row.is_admin,
    isModerated: row.is_moderated,
    ...limitFields((l) => Number(row[l.name])),
  };
}

export interface TokenSummary {
  id: string;
  name: string;
  prefix: string;
  last_four: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function summarize(t: ApiToken): TokenSummary {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    last_four: t.lastFour,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt ? t.lastUsedAt.toISOString() : null,
    revoked_at: t.revokedAt ? t.revokedAt.toISOString() : null,
  };
}

export async function listTokens(em: EntityManager, accountId: string): Promise<ApiToken[]> {
  return em.find(ApiTokenEntity, { accountId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Creates a token; refused when the account already has five active ones (contract: rule 4). */
export async function createToken(
  em: EntityManager,
  accountId: string,
  name: string,
): Promise<{ token: ApiToken; secret: string }> {
  return em.transactional(async (tx) => {
    // Serialise token creation per account so two concurrent creations cannot make six.
    await sql(tx, 'SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId]);
    const active = await tx.count(ApiTokenEntity, { accountId, revokedAt: null });
    if (active >= MAX_ACTIVE_TOKENS) {
      throw invalid(`An account can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`);
    }
    const secret = newSecret();
    const token = tx.create(ApiTokenEntity, {
      id: randomUUID(),
      accountId,
      name: name.trim() || 'API token',
      secretHash: hashSecret(secret),
      prefix: TOKEN_PREFIX,
      lastFour: secret.slice(-4),
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    });
    await tx.flush();
    return { token, secret };
  });
}

/** New secret for the same record: id and name stay, the old secret and its sessions die at once. */
export async function reissueToken(em: EntityManager, tokenId: string): Promise<{ token: ApiToken; secret: string }> {
  return em.transactional(async (tx) => {
    const token = await tx.findOne(ApiTokenEntity, { id: tokenId, revokedAt: null });
    if (!token) throw notFound(`No active token with id ${tokenId}`);
    const secret = newSecret();
    token.secretHash = hashSecret(secret);
    token.lastFour = secret.slice(-4);
    token.lastUsedAt = null;
    await tx.flush();
    await sql(tx, 'DELETE FROM console_sessions WHERE token_id = ?', [tokenId]);
    return { token, secret };
  });
}

export async function revokeToken(em: EntityManager, tokenId: string): Promise<ApiToken> {
  return em.transactional(async (tx) => {
    const token = await tx.findOne(ApiTokenEntity, { id: tokenId });
    if (!token) throw notFound(`No token with id ${tokenId}`);
    if (!token.revokedAt) token.revokedAt = new Date();
    await tx.flush();
    await sql(tx, 'DELETE FROM console_sessions WHERE token_id = ?', [tokenId]);
    return token;
  });
}

/** The account's own token with this id, or null (also for an id that is not a UUID). */
export async function findAccountToken(em: EntityManager, accountId: string, id: string): Promise<ApiToken | null> {
  return isUuid(id) ? em.findOne(ApiTokenEntity, { id, accountId }) : null;
}
