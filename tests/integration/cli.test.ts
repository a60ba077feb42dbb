import { describe, expect, it, onTestFinished } from 'vitest';
import { cli, removeDataDir, tempDataDir } from '../support/service';

/** The CLI works whether the server runs or not (here: it does not). */
describe('operator CLI without a running server', () => {
  it('starts the embedded cluster itself, prints one JSON line, and stops it again', async () => {
    const dataDir = tempDataDir('publishing-cli-');
    onTestFinished(() => removeDataDir(dataDir));
    const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: undefined };
    const created = await cli(env, [
      'account',
      'create',
      'offline-author',
      '--moderated',
      '--limit',
      'media_per_min=3',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    const account = created.json as { id: string; handle: string; token: string };
    expect(account.handle).toBe('offline-author');
    expect(account.token).toMatch(/^dp_live_/);

    const updated = await cli(env, [
      'account',
      'update',
      'offline-author',
      '--no-moderated',
      '--limit',
      'read_per_min=5',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({ moderated: false, limits: { read_per_min: 5, media_per_min: 3 } });

    const tokens = await cli(env, ['token', 'list', 'offline-author']);
    expect(tokens.code).toBe(0);
    const list = tokens.json as { name: string; last_four: string; revoked_at: null }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.last_four).toBe(account.token.slice(-4));
    expect(tokens.stdout).not.toContain(account.token);

    const duplicate = await cli(env, ['account', 'create', 'OFFLINE-author']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/taken/);
    expect(duplicate.stdout).toBe('');

    const pending = await cli(env, ['moderation', 'list']);
    expect(pending.json).toEqual([]);
    const notPending = await cli(env, ['moderation', 'approve', '00000000-0000-4000-8000-000000000000']);
    expect(notPending.code).toBe(1);
  });
});
