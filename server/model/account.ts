import { LIMITS, limitFields, RATE_CLASSES, type LimitField, type LimitName, type RateClass } from './rate-classes';

/**
 * The account: what everything but the database sees of it, and its one row shape (the columns
 * every statement that reads an account selects, and the mapper from them).
 */
export type Account = {
  id: string;
  handle: string;
  isAdmin: boolean;
  isModerated: boolean;
} & Record<LimitField, number>;

/** The account columns, selected from `accounts a`. */
export const ACCOUNT_COLUMNS = `a.id, a.handle, a.is_admin, a.is_moderated, ${LIMITS.map((l) => `a.${l.name}`).join(', ')}`;

/** The names of `ACCOUNT_COLUMNS` as they come back. */
export const ACCOUNT_COLUMN_NAMES = ['id', 'handle', 'is_admin', 'is_moderated', ...LIMITS.map((l) => l.name)];

/** The limits come as numbers, `daily_media_bytes` (bigint) as text. */
export type AccountRow = {
  id: string;
  handle: string;
  is_admin: boolean;
  is_moderated: boolean;
} & Record<LimitName, number | string>;

export function accountOf(row: AccountRow): Account {
  return {
    id: row.id,
    handle: row.handle,
    isAdmin: row.is_admin,
    isModerated: row.is_moderated,
    ...limitFields((l) => Number(row[l.name])),
  };
}

/** The account's limit of requests per minute of the rate class. */
export function limitFor(account: Account, cls: RateClass): number {
  return account[RATE_CLASSES[cls].field];
}

/** A caller whose API token was matched and checked: the token and its account. */
export interface Authenticated {
  tokenId: string;
  account: Account;
}
