/**
 * Media files on the local filesystem (MEDIA_STORAGE=fs, the default, under DATA_DIR).
 *
 * Layout: `<root>/data/<k0k1>/<key>` holds the bytes, `<root>/meta/<k0k1>/<key>.json` the content
 * type; the two-character fan-out keeps directories small. Writes go to a temp file in the same
 * directory, are fsynced, then renamed (atomic on POSIX) and the directory fsynced, so a crash
 * leaves either the old state or the complete file, never a torn one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  assertValidKey,
  normalizeRange,
  RangeNotSatisfiableError,
  StorageUnavailableError,
  type ByteRange,
  type MediaStorage,
  type StoredObject,
  type StoredObjectInfo,
} from './types';

const FALLBACK_TYPE = 'application/octet-stream';

export class FsMediaStorage implements MediaStorage {
  constructor(private readonly root: string) {}

  private dataPath(key: string) {
    return join(this.root, 'data', key.slice(0, 2), key);
  }

  private metaPath(key: string) {
    return join(this.root, 'meta', key.slice(0, 2), `${key}.json`);
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    try {
      // Meta first: a data file visible without its meta would be served with the wrong type.
      await writeAtomically(this.metaPath(key), Buffer.from(JSON.stringify({ contentType })));
      await writeAtomically(this.dataPath(key), data);
    } catch (err) {
      await this.delete(key).catch(() => undefined);
      throw unavailable('write', err);
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    assertValidKey(key);
    let handle;
    try {
      handle = await open(this.dataPath(key), 'r');
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable('open', err);
    }
    try {
      // Size and stream come from the same open handle, so a concurrent delete cannot split them.
      const { size } = await handle.stat();
      const effective = normalizeRange(range, size);
      const contentType = await this.contentType(key);
      const stream = handle.createReadStream(effective ? { start: effective.start, end: effective.end } : {});
      return { stream, size, contentType, range: effective };
    } catch (err) {
      await handle.close().catch(() => undefined);
      if (err instanceof RangeNotSatisfiableError || err instanceof TypeError) throw err;
      throw unavailable('read', err);
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    assertValidKey(key);
    try {
      const handle = await open(this.dataPath(key), 'r');
      try {
        const { size } = await handle.stat();
        return { size, contentType: await this.contentType(key) };
      } finally {
        await handle.close();
      }
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable('stat', err);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    // Both removals are attempted even if the first fails, so a rollback after a failed put
    // still removes the meta that was written before the data.
    const results = await Promise.allSettled([
      rm(this.dataPath(key), { force: true }),
      rm(this.metaPath(key), { force: true }),
    ]);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw unavailable('delete', failure.reason);
  }

  async healthy(): Promise<boolean> {
    const probe = join(this.root, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await mkdir(this.root, { recursive: true });
      const handle = await open(probe, 'w');
      await handle.close();
      await rm(probe, { force: true });
      return true;
    } catch {
      return false;
    }
  }

  private async contentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(this.metaPath(key), 'utf8')) as { contentType?: unknown };
      return typeof meta.contentType === 'string' ? meta.contentType : FALLBACK_TYPE;
    } catch (err) {
      if (isNotFound(err) || err instanceof SyntaxError) return FALLBACK_TYPE;
      throw err;
    }
  }
}

async function writeAtomically(path: string, data: Buffer): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  // The rename is durable only once the directory entry itself is on disk.
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

const isNotFound = (err: unknown) => typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT';

function unavailable(operation: string, err: unknown): StorageUnavailableError {
  const detail = err instanceof Error ? err.message : String(err);
  return new StorageUnavailableError(`fs ${operation} failed: ${detail}`, { cause: err });
}
