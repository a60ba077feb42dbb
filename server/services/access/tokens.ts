import { randomBytes, randomUUID } from 'node:crypto';
import type { StatementRunner } from '../../../db/statements';
import { lockAccount } from '../../data/accounts';
import { findTokenRow, insertTokenRow, listTokenRows, reissueTokenRow, revokeTokenRow } from '../../data/tokens';
import { invalid, notFound } from '../../foundation/errors';
import type { TokenRecord } from '../../model/token';
import { hashSecret, TOKEN_PREFIX } from '../../model/token-secret';
import { isUuid } from '../../foundation/uuid';

/**
 * API tokens (contract: "Authentication"). A secret is `dp_live_` + 43 base62 characters
 * (256 bits of entropy). Only its SHA-256 is stored: with that much entropy a slow hash
 * adds nothing, and an index on the digest keeps authentication to one query. The row
 * found is still compared in constant time before it is trusted.
 */
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

/** The account's tokens, revoked ones too: the console's door to them, as app/ may not import server/data. */
export function listTokens(db: StatementRunner, accountId: string): Promise<TokenRecord[]> {
  return listTokenRows(db, accountId);
}

/** Creates a token; refused when the account already has five active ones (contract: rule 4). */
export async function createToken(
  db: StatementRunner,
  accountId: string,
  name: string,
): Promise<{ token: TokenRecord; secret: string }> {
  const secret = newSecret();
  const token = await db.transaction(async (tx) => {
    // Creations of one account take turns, so two at once cannot make six.
    if (!(await lockAccount(tx, accountId))) throw notFound(`No account ${accountId}`);
    return insertTokenRow(
      tx,
      {
        id: randomUUID(),
        accountId,
        name: name.trim() || 'API token',
        secretHash: hashSecret(secret),
        prefix: TOKEN_PREFIX,
        lastFour: secret.slice(-4),
      },
      MAX_ACTIVE_TOKENS,
    );
  });
  if (!token) throw invalid(`An account can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`);
  return { token, secret };
}

/** New secret for the same record: id and name stay, the old secret and its sessions die at once. */
export async function reissueToken(
  db: StatementRunner,
  tokenId: string,
): Promise<{ token: TokenRecord; secret: string }> {
  const secret = newSecret();
  const token = isUuid(tokenId) ? await reissueTokenRow(db, tokenId, hashSecret(secret), secret.slice(-4)) : null;
  if (!token) throw notFound(`No active token with id ${tokenId}`);
  return { token, secret };
}

export async function revokeToken(db: StatementRunner, tokenId: string): Promise<TokenRecord> {
  const token = isUuid(tokenId) ? await revokeTokenRow(db, tokenId) : null;
  if (!token) throw notFound(`No token with id ${tokenId}`);
  return token;
}

/** The account's own token with this id, or null (also for an id that is not a UUID). */
export async function findAccountToken(
  db: StatementRunner,
  accountId: string,
  id: string,
): Promise<TokenRecord | null> {
  return isUuid(id) ? findTokenRow(db, id, accountId) : null;
}
