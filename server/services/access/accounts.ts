import { randomUUID } from 'node:crypto';
import type { StatementRunner } from '../../../db/statements';
import {
  deleteAccountRow,
  findLiveAccount as findLiveAccountRow,
  insertAccount,
  updateAccountRow,
} from '../../data/accounts';
import type { Account } from '../../model/account';
import { localMediaPath } from '../../content/urls';
import { conflict, invalid, notFound } from '../../foundation/errors';
import { DEFAULT_LIMITS, limitFields, type LimitName } from '../../model/rate-classes';
import { publicPathOf, type AnnouncePublicChange } from '../posts/public-changes';
import { createToken } from './tokens';

/** Accounts are created and managed by operators (the CLI and the console), never through the REST API. */
const HANDLE_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export type LimitOverrides = Partial<Record<LimitName, number>>;

export async function findLiveAccount(db: StatementRunner, handle: string): Promise<Account> {
  const account = await findLiveAccountRow(db, handle);
  if (!account) throw notFound(`No account with handle "${handle}"`);
  return account;
}

/** A new account with its first token ("default"), in one transaction: there is no account without a token. */
export async function createAccount(
  db: StatementRunner,
  handle: string,
  opts: { admin?: boolean; moderated?: boolean; limits?: LimitOverrides },
): Promise<{ account: Account; secret: string }> {
  if (!HANDLE_PATTERN.test(handle)) throw invalid(`handle: "${handle}" must be 1–64 letters, digits, "_", "." or "-"`);
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  return db.transaction(async (tx) => {
    const account = await insertAccount(tx, {
      id: randomUUID(),
      handle,
      isAdmin: opts.admin ?? false,
      isModerated: opts.moderated ?? false,
      ...limitFields((l) => limits[l.name]),
    });
    if (!account) throw conflict(`handle: "${handle}" is taken`);
    const { secret } = await createToken(tx, account.id, 'default');
    return { account, secret };
  });
}

export async function updateAccount(
  db: StatementRunner,
  handle: string,
  opts: { moderated?: boolean; admin?: boolean; limits?: LimitOverrides },
): Promise<Account> {
  const account = await updateAccountRow(db, handle, {
    isModerated: opts.moderated,
    isAdmin: opts.admin,
    limits: opts.limits ?? {},
  });
  if (!account) throw notFound(`No account with handle "${handle}"`);
  return account;
}

/**
 * Deleting an account revokes all its tokens (and so ends every console session): nothing of it
 * keeps working. Its public pages and its files stop being served (public-articles.ts,
 * findServableMedia): every path that showed something of it is announced.
 */
export async function deleteAccount(
  db: StatementRunner,
  handle: string,
  announce: AnnouncePublicChange,
): Promise<Account> {
  const deleted = await deleteAccountRow(db, handle);
  if (!deleted) throw notFound(`No account with handle "${handle}"`);
  announce([
    ...deleted.articles.map((a) => publicPathOf(a.slug, a.public_id)),
    ...deleted.media.map((id) => localMediaPath(id)),
  ]);
  return deleted.account;
}

export function parseLimitOverride(spec: string): [LimitName, number] {
  const match = /^([a-z_]+)=(\d+)$/.exec(spec);
  if (!match || !(match[1]! in DEFAULT_LIMITS)) {
    throw invalid(`--limit ${spec}: expected NAME=N with NAME one of ${Object.keys(DEFAULT_LIMITS).join(', ')}`);
  }
  const value = Number(match[2]);
  if (!Number.isSafeInteger(value)) throw invalid(`--limit ${spec}: N is too large`);
  return [match[1] as LimitName, value];
}
