/**
 * Media files in S3-compatible object storage (MEDIA_STORAGE=s3), for deployments
 * with several instances. Path-style addressing so MinIO, Ceph, s3rver etc. work with a plain
 * endpoint URL. Short timeouts and one retry: an upload request should fail with 503 quickly
 * rather than hang on a dead endpoint.
 */
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
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

export interface S3StorageConfig {
  bucket: string;
  region?: string;
  /** e.g. http://127.0.0.1:9000; omit for AWS itself. */
  endpoint?: string;
  /** Omit to use the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Key prefix inside the bucket, e.g. "media/". */
  prefix?: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

const FALLBACK_TYPE = 'application/octet-stream';

export class S3MediaStorage implements MediaStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: S3StorageConfig) {
    this.bucket = config.bucket;
    this.prefix = config.prefix ?? '';
    this.client = new S3Client({
      region: config.region ?? 'us-east-1',
      endpoint: config.endpoint,
      forcePathStyle: true,
      credentials: config.credentials,
      maxAttempts: 2,
      requestHandler: {
        connectionTimeout: config.connectionTimeoutMs ?? 3_000,
        requestTimeout: config.requestTimeoutMs ?? 60_000,
      },
    });
  }

  private objectKey(key: string) {
    assertValidKey(key);
    return this.prefix + key;
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key,
          Body: data,
          ContentType: contentType,
          ContentLength: data.length,
        }),
      );
    } catch (err) {
      throw unavailable('put', err);
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const Key = this.objectKey(key);
    if (range) normalizeRange(range, Number.MAX_SAFE_INTEGER); // shape check only; the size is not known yet
    let response;
    try {
      response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (err) {
      if (isNotFound(err)) return null;
      if (status(err) === 416) {
        const info = await this.head(key);
        if (!info) return null;
        throw new RangeNotSatisfiableError(info.size);
      }
      throw unavailable('get', err);
    }
    const total = range ? totalFromContentRange(response.ContentRange) : response.ContentLength;
    if (total === undefined || !response.Body) {
      (response.Body as Readable | undefined)?.destroy?.();
      throw unavailable('get', new Error('response without size or body'));
    }
    const body = response.Body as Readable;
    return {
      stream: body instanceof Readable ? body : Readable.from(body as AsyncIterable<Uint8Array>),
      size: total,
      contentType: response.ContentType ?? FALLBACK_TYPE,
      range: range ? normalizeRange(range, total) : null,
    };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const Key = this.objectKey(key);
    try {
      const response = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { size: response.ContentLength ?? 0, contentType: response.ContentType ?? FALLBACK_TYPE };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable('head', err);
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw unavailable('delete', err);
    }
  }

  async healthy(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  /** Closes pooled sockets (tests, shutdown). */
  destroy(): void {
    this.client.destroy();
  }
}

const status = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

const isNotFound = (err: unknown) =>
  status(err) === 404 || (err instanceof Error && (err.name === 'NoSuchKey' || err.name === 'NotFound'));

/** "bytes 0-9/1234" → 1234 */
function totalFromContentRange(header: string | undefined): number | undefined {
  const match = header?.match(/\/(\d+)$/);
  return match ? Number(match[1]) : undefined;
}

function unavailable(operation: string, err: unknown): StorageUnavailableError {
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new StorageUnavailableError(`s3 ${operation} failed: ${detail}`, { cause: err });
}
