/**
 * Where stored media bytes live: the filesystem under DATA_DIR by default, S3-compatible
 * object storage when several instances must see the same files. Keys are flat names such as
 * `<uuid>` or `<uuid>.mp4`.
 */
import type { Readable } from 'node:stream';
import { DomainError } from '../../foundation/errors';

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObjectInfo {
  /** Size of the whole object in bytes (not of the requested range). */
  size: number;
  contentType: string;
}

export interface StoredObject extends StoredObjectInfo {
  /** The requested range, or the whole object; the caller must consume or destroy it. */
  stream: Readable;
  /** The range actually streamed (end clamped to size - 1), or null for the whole object. */
  range: ByteRange | null;
}

export interface MediaStorage {
  /** Stores the bytes durably; resolves only when a later get() will see them. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** null when the key is absent. Throws RangeNotSatisfiableError for a range past the end. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  head(key: string): Promise<StoredObjectInfo | null>;
  /** Idempotent: deleting an absent key succeeds. */
  delete(key: string): Promise<void>;
  /** Cheap readiness probe; never throws. */
  healthy(): Promise<boolean>;
}

/** The storage backend failed: `unavailable` (503 service_unavailable), so clients retry instead of giving up. */
export class StorageUnavailableError extends DomainError {
  constructor(
    /** For logs only: backend error text never reaches clients. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super('unavailable', 'Media storage is temporarily unavailable', { cause: options?.cause });
    this.name = 'StorageUnavailableError';
  }
}

/** A range starting at or past the end of the object (HTTP 416 with `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiableError extends Error {
  constructor(readonly size: number) {
    super(`range not satisfiable (object has ${size} bytes)`);
    this.name = 'RangeNotSatisfiableError';
  }
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Keys are flat safe names: no separators, no `..`, so they can never escape the fs root. */
export function assertValidKey(key: string): void {
  if (!KEY.test(key) || key.includes('..')) throw new TypeError(`invalid media storage key: ${JSON.stringify(key)}`);
}

/** Clamps `end` to the object and validates the range against its size. */
export function normalizeRange(range: ByteRange | undefined, size: number): ByteRange | null {
  if (!range) return null;
  if (!Number.isInteger(range.start) || !Number.isInteger(range.end) || range.start < 0 || range.end < range.start) {
    throw new TypeError(`invalid byte range ${range.start}-${range.end}`);
  }
  if (range.start >= size) throw new RangeNotSatisfiableError(size);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
