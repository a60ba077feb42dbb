/**
 * The generated session secret: created whole (temp file, then linked into place) with mode 600,
 * never replacing a key that is already there, and a key shorter than 32 bytes refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let dir: string;

async function loadSecrets(vars: Record<string, string> = {}) {
  vi.resetModules();
  vi.stubEnv('DATA_DIR', dir);
  vi.stubEnv('SESSION_SECRET', '');
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
  return import('../../../server/foundation/secrets');
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-test-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  // The modules read under the stubbed values go too: the next file of this worker (the unit
  // project shares workers between files) imports them anew.
  vi.resetModules();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('session secret file', () => {
  it('is created with mode 600, at least 32 bytes, and no temporary file is left', async () => {
    const { appSecret } = await loadSecrets();
    const key = appSecret();
    const file = path.join(dir, 'session-secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(key.toString('utf8'));
    expect(fs.readdirSync(dir)).toEqual(['session-secret']);
  });

  it('creates DATA_DIR when it is missing', async () => {
    fs.rmSync(dir, { recursive: true });
    const { appSecret } = await loadSecrets();
    expect(appSecret().length).toBeGreaterThanOrEqual(32);
  });

  it('keeps a key that is already there (another instance may be signing with it)', async () => {
    const existing = 'k'.repeat(40);
    fs.writeFileSync(path.join(dir, 'session-secret'), `${existing}\n`, { mode: 0o600 });
    const { appSecret, derivedKey } = await loadSecrets();
    expect(appSecret().toString()).toBe(existing);
    // Two loads of the same file derive the same keys.
    const again = await loadSecrets();
    expect(again.derivedKey('cursor').equals(derivedKey('cursor'))).toBe(true);
  });

  it('refuses a key file shorter than 32 bytes, saying how to fix it', async () => {
    fs.writeFileSync(path.join(dir, 'session-secret'), 'short-key\n', { mode: 0o600 });
    const { appSecret } = await loadSecrets();
    expect(() => appSecret()).toThrow(/session-secret: the session secret is 9 bytes, at least 32 are needed/);
  });

  it('refuses an empty key file (what a crash mid-write used to leave)', async () => {
    fs.writeFileSync(path.join(dir, 'session-secret'), '', { mode: 0o600 });
    const { appSecret } = await loadSecrets();
    expect(() => appSecret()).toThrow(/0 bytes, at least 32/);
  });

  it('refuses a SESSION_SECRET shorter than 32 characters at start', async () => {
    await expect(loadSecrets({ SESSION_SECRET: 'x'.repeat(31) })).rejects.toThrow(/SESSION_SECRET/);
    const { appSecret } = await loadSecrets({ SESSION_SECRET: 'x'.repeat(32) });
    expect(appSecret().length).toBe(32);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
