/**
 * Storage factory. Callers build one MediaStorage at startup and share it; nothing here reads
 * process.env (mediaStorageConfigFromEnv maps the validated env object explicitly).
 */
import { join } from 'node:path';
import type { Env } from '../../foundation/env';
import { FsMediaStorage } from './fs-storage';
import { S3MediaStorage, type S3StorageConfig } from './s3-storage';
import type { MediaStorage } from './types';

export * from './types';
export { FsMediaStorage } from './fs-storage';
export { S3MediaStorage } from './s3-storage';

export type MediaStorageConfig = { kind: 'fs'; root: string } | ({ kind: 's3' } & S3StorageConfig);

export function createMediaStorage(config: MediaStorageConfig): MediaStorage {
  switch (config.kind) {
    case 'fs':
      return new FsMediaStorage(config.root);
    case 's3': {
      const { kind: _kind, ...s3 } = config;
      return new S3MediaStorage(s3);
    }
  }
}

/** MEDIA_STORAGE: fs under DATA_DIR/media, or s3 from S3_* (credentials via the AWS SDK chain). */
export function mediaStorageConfigFromEnv(
  env: Pick<Env, 'MEDIA_STORAGE' | 'dataDir' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION'>,
): MediaStorageConfig {
  if (env.MEDIA_STORAGE === 'fs') return { kind: 'fs', root: join(env.dataDir, 'media') };
  if (!env.S3_BUCKET) throw new Error('MEDIA_STORAGE=s3 needs S3_BUCKET');
  return { kind: 's3', bucket: env.S3_BUCKET, endpoint: env.S3_ENDPOINT, region: env.S3_REGION };
}
