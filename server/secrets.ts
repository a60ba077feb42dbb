import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { env } from './env';

/**
 * The application secret (env SESSION_SECRET): from the environment, or generated
 * once and kept under DATA_DIR. Several instances behind a load balancer must share it
 * (set SESSION_SECRET, or share DATA_DIR). Purpose-specific keys are derived from it so a
 * cursor signature can never double as a session signature.
 */
let cached: Buffer | undefined;

function appSecret(): Buffer {
  if (cached) return cached;
  if (env.SESSION_SECRET) {
    cached = Buffer.from(env.SESSION_SECRET, 'utf8');
    return cached;
  }
  const file = path.join(env.dataDir, 'session-secret');
  fs.mkdirSync(env.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  cached = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'utf8');
  return cached;
}

export function derivedKey(purpose: string): Buffer {
  return createHmac('sha256', appSecret()).update(`author-publishing:${purpose}`).digest();
}
