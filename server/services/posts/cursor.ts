import { hash, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../../foundation/secrets';
import { isUuid } from '../../foundation/uuid';

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
 * HMAC-SHA256 (RFC 2104) computed from two one-shot hashes, the key's padded blocks prepared
 * once: the same MAC as `createHmac('sha256', key)`, without that object per call (a page
 * request signs twice, the cursor it was given and the one it returns, and constructing the
 * HMAC object cost more than hashing). The key is derived from the application secret once.
 */
const BLOCK = 64;
let pads: { inner: Buffer; outer: Buffer } | undefined;

function keyPads(key: Buffer): { inner: Buffer; outer: Buffer } {
  // A derived key is a SHA-256 digest (32 bytes); a longer one would have to be hashed first.
  if (key.length > BLOCK) throw new Error('cursor key longer than a SHA-256 block');
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  return { inner, outer };
}

function sign(accountId: string, payload: string): string {
  pads ??= keyPads(derivedKey('cursor'));
  const message = Buffer.from(`${accountId}\n${payload}`, 'utf8');
  const inner = hash('sha256', Buffer.concat([pads.inner, message]), 'buffer');
  return hash('sha256', Buffer.concat([pads.outer, inner]), 'base64url').slice(0, 22);
}

export function encodeCursor(accountId: string, pos: CursorPosition): string {
  const payload = Buffer.from(`${pos.createdAt.getTime()}.${pos.id}`, 'utf8').toString('base64url');
  return `${payload}.${sign(accountId, payload)}`;
}

/** A cursor taken apart, its signature not yet checked: `cursorSignedFor` does that. */
export interface ParsedCursor {
  payload: string;
  mac: string;
  position: CursorPosition;
}

/**
 * The position a cursor names, or null for anything not shaped like one of ours. Not trusted
 * until `cursorSignedFor` says it was issued to the account (a page is read with it first, in
 * the statement that also finds the account: services/posts/post-reads.ts).
 */
export function parseCursor(cursor: string): ParsedCursor | null {
  const parts = cursor.split('.');
  if (parts.length !== 2) return null;
  const [payload, mac] = parts as [string, string];
  const [ms, id] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
  const time = Number(ms);
  if (!Number.isSafeInteger(time) || !id || !isUuid(id)) return null;
  return { payload, mac, position: { createdAt: new Date(time), id } };
}

/** Whether this service issued the cursor to this account (HMAC, compared in constant time). */
export function cursorSignedFor(accountId: string, cursor: ParsedCursor): boolean {
  const expected = sign(accountId, cursor.payload);
  return cursor.mac.length === expected.length && timingSafeEqual(Buffer.from(cursor.mac), Buffer.from(expected));
}

/** Returns null for anything that is not a cursor this service issued to this account. */
export function decodeCursor(accountId: string, cursor: string): CursorPosition | null {
  const parsed = parseCursor(cursor);
  return parsed && cursorSignedFor(accountId, parsed) ? parsed.position : null;
}
