import path from 'node:path';
import { z } from 'zod';

/**
 * The process environment, validated once (the variables and defaults are in the README).
 * Everything else imports `env` from here instead of reading process.env,
 * so a typo or a bad value fails at start with a readable message.
 */
const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const EnvSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  ALLOWED_PRIVATE_ADDRESSES: z.preprocess(emptyAsUndefined, z.string().default('')),
  MEDIA_STORAGE: z.preprocess(emptyAsUndefined, z.enum(['fs', 's3']).default('fs')),
  S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().optional()),
  S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  S3_REGION: z.preprocess(emptyAsUndefined, z.string().default('us-east-1')),
  SESSION_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32).optional()),
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(['silent', 'info']).default('info')),
  /** Markdown conversion threads; default: the cores less one, kept for the HTTP event loop. */
  CONTENT_POOL_THREADS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(64).optional()),
  /** The bundled conversion worker (`npm run build:worker`); default: dist/content-worker.mjs. */
  CONTENT_WORKER_PATH: z.preprocess(emptyAsUndefined, z.string().optional()),
});

export type Env = z.infer<typeof EnvSchema> & { dataDir: string };

function readEnv(): Env {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${problems}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR) };
}

export const env: Env = readEnv();
