import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountEntity, type Account } from '../../db/entities';
import { sql } from '../../db/sql';
import { localMediaPath } from '../content/urls';
import { conflict, invalid, notFound } from '../errors';
import { DEFAULT_LIMITS, LIMITS, limitFields, type LimitName } from './rate-classes';
import { announcePublicChange, publicPathOf } from './public-changes';
import { createToken } from './tokens';

/** Accounts are created and managed by operators (the CLI and the console), never through the REST API. */
const HANDLE_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export type LimitOverrides = Partial<Record<LimitName, number>>;

export async function findLiveAccount(em: EntityManager, handle: string): Promise<Account> {
  const account = await em.findOne(AccountEntity, {
    handle: { $ilike: handle.replace(/[\\%_]/g, '\\$&') },
    deletedAt: null,
  });
  if (!account) throw notFound(`No account with handle "${handle}"`);
  return account;
}

export async function createAccount(
  em: EntityManager,
  handle: string,
  opts: { admin?: boolean; moderated?: boolean; limits?: LimitOverrides },
): Promise<{ account: Account; secret: string }> {
  if (!HANDLE_PATTERN.test(handle)) throw invalid(`handle: "${handle}" must be 1–64 letters, digits, "_", "." or "-"`);
  const existing = await em.count(AccountEntity, {
    handle: { $ilike: handle.replace(/[\\%_]/g, '\\$&') },
    deletedAt: null,
  });
  if (existing > 0) throw conflict(`handle: "${handle}" is taken`);
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const account = em.create(AccountEntity, {
    id: randomUUID(),
    handle,
    isAdmin: opts.admin ?? false,
    isModerated: opts.moderated ?? false,
    ...limitFields((l) => limits[l.name]),
    createdAt: new Date(),
    deletedAt: null,
  });
  await em.flush();
  const { secret } = await createToken(em, account.id, 'default');
  return { account, secret };
}

export async function updateAccount(
  em: EntityManager,
  handle: string,
  opts: { moderated?: boolean; admin?: boolean; limits?: LimitOverrides },
): Promise<Account> {
  const account = await findLiveAccount(em, handle);
  if (opts.moderated !== undefined) account.isModerated = opts.moderated;
  if (opts.admin !== undefined) account.isAdmin = opts.admin;
  for (const [name, value] of Object.entries(opts.limits ?? {}) as [LimitName, number][]) {
    account[LIMITS.find((l) => l.name === name)!.field] = value;
  }
  await em.flush();
  return account;
}

/** Deleting an account revokes all its tokens (and so ends every console session): nothing of it keeps working. */
export async function deleteAccount(em: EntityManager, handle: string): Promise<Account> {
  const { account, paths } = await em.transactional(async (tx) => {
    const account = await findLiveAccount(tx, handle);
    account.deletedAt = new Date();
    await tx.flush();
    await sql(tx, 'UPDATE api_tokens SET revoked_at = now() WHERE account_id = ? AND revoked_at IS NULL', [account.id]);
    await sql(tx, 'DELETE FROM console_sessions WHERE account_id = ?', [account.id]);
    return { account, paths: await publicPathsOfAccount(tx, account.id) };
  });
  // Its public pages and its files stop being served (public-articles.ts, findServableMedia).
  announcePublicChange(paths);
  return account;
}

/** Every path that shows something of the account: its public articles and its stored files. */
async function publicPathsOfAccount(tx: EntityManager, accountId: string): Promise<string[]> {
  const articles = await sql<{ public_id: string; slug: string | null }[]>(
    tx,
    `SELECT public_id, published_version->>'slug' AS slug FROM posts
      WHERE account_id = ? AND deleted_at IS NULL AND published_version IS NOT NULL`,
    [accountId],
  );
  const media = await sql<{ id: string }[]>(tx, 'SELECT id FROM media WHERE account_id = ?', [accountId]);
  return [
    ...articles.map((row) => publicPathOf(row.slug, row.public_id)).filter((p): p is string => p !== null),
    ...media.map((row) => localMediaPath(row.id)),
  ];
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
