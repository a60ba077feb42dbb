import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../secrets';
import { isUuid } from '../uuid';

/**
 * Opaque `GET /posts` cursors: the last item's `(created_at, id)`, signed with HMAC so a
 * corrupted or hand-built cursor is a 400 rather than a silently wrong page
 * (clients are told to pass `next_cursor` back unchanged, never to build one). Bound to the
 * account as well, so one account's cursor is useless to another.
 */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/**
 * The signing key, derived from the application secret once: deriving it is an HMAC of its
 * own, and a page request signs twice (the cursor it was given, the one it returns).
 */
let key: Buffer | undefined;

function sign(accountId: string, payload: string): string {
  key ??= derivedKey('cursor');
  return createHmac('sha256', key).update(`${accountId}\n${payload}`).digest('base64url').slice(0, 22);
}

export function encodeCursor(accountId: string, pos: CursorPosition): string {
  const payload = Buffer.from(`${pos.createdAt.getTime()}.${pos.id}`, 'utf8').toString('base64url');
  return `${payload}.${sign(accountId, payload)}`;
}

/** Returns null for anything that is not a cursor this service issued to this account. */
export function decodeCursor(accountId: string, cursor: string): CursorPosition | null {
  const parts = cursor.split('.');
  if (parts.length !== 2) return null;
  const [payload, mac] = parts as [string, string];
  const expected = sign(accountId, payload);
  if (mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return null;
  const [ms, id] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
  const time = Number(ms);
  if (!Number.isSafeInteger(time) || !id || !isUuid(id)) return null;
  return { createdAt: new Date(time), id };
}
