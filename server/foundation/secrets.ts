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

/** HMAC-SHA256 keys shorter than its output weaken every signature derived from them. */
const MIN_SECRET_BYTES = 32;

/**
 * Loads (or creates) the secret and refuses a short one. The launcher calls it before serving,
 * so a bad key stops the start instead of failing the first sign-in.
 */
export function appSecret(): Buffer {
  if (cached) return cached;
  if (env.SESSION_SECRET) {
    cached = checkedLength(Buffer.from(env.SESSION_SECRET, 'utf8'), 'SESSION_SECRET');
    return cached;
  }
  const file = path.join(env.dataDir, 'session-secret');
  if (!fs.existsSync(file)) createSecretFile(file);
  cached = checkedLength(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'utf8'), file);
  return cached;
}

function checkedLength(key: Buffer, source: string): Buffer {
  if (key.length < MIN_SECRET_BYTES) {
    throw new Error(
      `${source}: the session secret is ${key.length} bytes, at least ${MIN_SECRET_BYTES} are needed ` +
        `(set SESSION_SECRET to a longer value, or remove the file to have a new one generated)`,
    );
  }
  return key;
}

/**
 * Written whole to a temporary file (mode 600) and then linked into place, so no reader ever
 * sees an empty or half-written key (a crash mid-write leaves only a temporary file). Linking
 * rather than renaming never replaces a key another instance sharing DATA_DIR put there first
 * and may already be signing with: the loser of that race reads the winner's key.
 */
function createSecretFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temp, 'wx', 0o600);
    try {
      fs.writeSync(fd, randomBytes(MIN_SECRET_BYTES).toString('base64url') + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

export function derivedKey(purpose: string): Buffer {
  return createHmac('sha256', appSecret()).update(`author-publishing:${purpose}`).digest();
}
