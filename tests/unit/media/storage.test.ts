/**
 * One contract, two backends: the filesystem in a temp dir, and S3 over HTTP against s3rver
 * started on 127.0.0.1 for this file (nothing here can reach a cloud).
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMediaStorage,
  FsMediaStorage,
  mediaStorageConfigFromEnv,
  RangeNotSatisfiableError,
  S3MediaStorage,
  StorageUnavailableError,
  type MediaStorage,
} from '../../../server/media/storage';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }; // s3rver's fixed pair

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}

let tempRoot: string;
let s3rver: S3rver;
let s3Endpoint: string;
const toDestroy: S3MediaStorage[] = [];

beforeAll(async () => {
  tempRoot = await mkdtemp(join(tmpdir(), 'media-storage-'));
  s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(tempRoot, 's3rver'),
    configureBuckets: [{ name: 'media' }],
  });
  const { port } = await s3rver.run();
  s3Endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const storage of toDestroy) storage.destroy();
  await s3rver?.close();
  await rm(tempRoot, { recursive: true, force: true });
});

const backends: Array<[string, () => MediaStorage]> = [
  ['fs', () => createMediaStorage({ kind: 'fs', root: join(tempRoot, `fs-${Math.random().toString(36).slice(2)}`) })],
  [
    's3',
    () => {
      const storage = createMediaStorage({
        kind: 's3',
        bucket: 'media',
        endpoint: s3Endpoint,
        credentials: CREDENTIALS,
      }) as S3MediaStorage;
      toDestroy.push(storage);
      return storage;
    },
  ],
];

describe.each(backends)('%s storage', (_name, make) => {
  it('stores, reads back, heads and deletes an object', async () => {
    const storage = make();
    const key = '3f1c2b9e-6a0d-4c55-9a57-0b0e7d4a1c11';
    expect(await storage.healthy()).toBe(true);
    expect(await storage.get(key)).toBeNull();
    expect(await storage.head(key)).toBeNull();

    await storage.put(key, Buffer.from('0123456789'), 'image/png');
    expect(await storage.head(key)).toEqual({ size: 10, contentType: 'image/png' });
    const whole = await storage.get(key);
    expect(whole).toMatchObject({ size: 10, contentType: 'image/png', range: null });
    expect(await text(whole!.stream)).toBe('0123456789');

    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await storage.delete(key); // idempotent
  });

  it('serves inclusive byte ranges and reports the full size', async () => {
    const storage = make();
    const key = 'ranged.mp4';
    await storage.put(key, Buffer.from('abcdefghij'), 'video/mp4');
    const middle = await storage.get(key, { start: 2, end: 5 });
    expect(middle).toMatchObject({ size: 10, contentType: 'video/mp4', range: { start: 2, end: 5 } });
    expect(await text(middle!.stream)).toBe('cdef');
    const tail = await storage.get(key, { start: 7, end: 1_000 });
    expect(tail!.range).toEqual({ start: 7, end: 9 });
    expect(await text(tail!.stream)).toBe('hij');
    await expect(storage.get(key, { start: 10, end: 20 })).rejects.toMatchObject({
      name: 'RangeNotSatisfiableError',
      size: 10,
    });
    await expect(storage.get(key, { start: 10, end: 20 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
  });

  it('overwrites an existing key completely', async () => {
    const storage = make();
    await storage.put('again', Buffer.from('first version, long'), 'image/jpeg');
    await storage.put('again', Buffer.from('second'), 'image/webp');
    const object = await storage.get('again');
    expect([object!.size, object!.contentType, await text(object!.stream)]).toEqual([6, 'image/webp', 'second']);
  });

  it('round-trips a multi-megabyte binary object byte for byte', async () => {
    const storage = make();
    const data = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    await storage.put('big-object', data, 'image/png');
    const object = await storage.get('big-object');
    const chunks: Buffer[] = [];
    for await (const chunk of object!.stream) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('rejects keys that could escape the store', async () => {
    const storage = make();
    for (const key of ['../etc/passwd', 'a/b', '', '.hidden', 'a..b', 'x'.repeat(201)]) {
      await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(TypeError);
      await expect(storage.get(key)).rejects.toBeInstanceOf(TypeError);
    }
  });
});

describe('fs storage specifics', () => {
  it('leaves no temp files behind and fans keys out into subdirectories', async () => {
    const root = join(tempRoot, 'layout');
    const storage = new FsMediaStorage(root);
    await storage.put('abcdef', Buffer.from('x'), 'image/gif');
    expect(await readdir(join(root, 'data', 'ab'))).toEqual(['abcdef']);
    expect(await readdir(join(root, 'meta', 'ab'))).toEqual(['abcdef.json']);
  });

  it('throws StorageUnavailableError (unavailable: 503 over HTTP) when the root cannot be written', async () => {
    const blocker = join(tempRoot, 'not-a-directory');
    await writeFile(blocker, 'a file where the media root should be');
    // Running as root bypasses permission bits, so make the path impossible instead.
    const storage = new FsMediaStorage(join(blocker, 'media'));
    const err = await storage.put('k1', Buffer.from('x'), 'image/png').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageUnavailableError);
    expect(err).toMatchObject({
      kind: 'unavailable',
      message: 'Media storage is temporarily unavailable',
    });
    expect((err as StorageUnavailableError).detail).toMatch(/ENOTDIR|EEXIST/);
    expect(await storage.healthy()).toBe(false);
    await expect(storage.get('k1')).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('fails cleanly when the data tree breaks after start, leaving no half-stored object', async () => {
    const root = join(tempRoot, 'broken-later');
    const storage = new FsMediaStorage(root);
    await storage.put('okay', Buffer.from('x'), 'image/png');
    await rm(join(root, 'data'), { recursive: true });
    await writeFile(join(root, 'data'), 'the data directory became a file');
    await expect(storage.put('later', Buffer.from('y'), 'image/png')).rejects.toBeInstanceOf(StorageUnavailableError);
    // The meta written first was rolled back, so nothing claims the key exists.
    expect(await readdir(join(root, 'meta', 'la'))).toEqual([]);
    expect(await readdir(join(root, 'meta', 'ok'))).toEqual(['okay.json']);
    expect(await storage.healthy()).toBe(true); // the root itself is still writable
  });
});

describe('s3 storage specifics', () => {
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it('throws StorageUnavailableError when the endpoint does not answer', async () => {
    const storage = new S3MediaStorage({
      bucket: 'media',
      endpoint: `http://127.0.0.1:${await closedPort()}`,
      credentials: CREDENTIALS,
    });
    toDestroy.push(storage);
    await expect(storage.put('k1', Buffer.from('x'), 'image/png')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.get('k1')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await storage.healthy()).toBe(false);
  });

  it('reports a missing bucket as unhealthy and unavailable', async () => {
    const storage = new S3MediaStorage({ bucket: 'no-such-bucket', endpoint: s3Endpoint, credentials: CREDENTIALS });
    toDestroy.push(storage);
    expect(await storage.healthy()).toBe(false);
    await expect(storage.put('k1', Buffer.from('x'), 'image/png')).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('keeps objects under a key prefix', async () => {
    const storage = new S3MediaStorage({
      bucket: 'media',
      endpoint: s3Endpoint,
      credentials: CREDENTIALS,
      prefix: 'tenant-a-',
    });
    toDestroy.push(storage);
    await storage.put('k2', Buffer.from('prefixed'), 'image/png');
    const plain = new S3MediaStorage({ bucket: 'media', endpoint: s3Endpoint, credentials: CREDENTIALS });
    toDestroy.push(plain);
    expect(await plain.head('tenant-a-k2')).toEqual({ size: 8, contentType: 'image/png' });
    expect(await plain.head('k2')).toBeNull();
  });
});

describe('mediaStorageConfigFromEnv', () => {
  it('maps MEDIA_STORAGE=fs to DATA_DIR/media and s3 to the S3_* settings', () => {
    expect(mediaStorageConfigFromEnv({ MEDIA_STORAGE: 'fs', dataDir: '/srv/data', S3_REGION: 'us-east-1' })).toEqual({
      kind: 'fs',
      root: '/srv/data/media',
    });
    expect(
      mediaStorageConfigFromEnv({
        MEDIA_STORAGE: 's3',
        dataDir: '/x',
        S3_BUCKET: 'b',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_REGION: 'eu-west-1',
      }),
    ).toEqual({ kind: 's3', bucket: 'b', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1' });
    expect(() => mediaStorageConfigFromEnv({ MEDIA_STORAGE: 's3', dataDir: '/x', S3_REGION: 'us-east-1' })).toThrow(
      /S3_BUCKET/,
    );
  });
});
