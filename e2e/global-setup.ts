import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { cli, startService } from '../tests/support/service';
import { STATE_ENV, type E2EState } from './support/state';

/**
 * One real service (the code `npm start` runs, on a temp DATA_DIR with its own embedded
 * PostgreSQL) for the whole e2e run, plus the accounts the specs sign in with. Tokens reach
 * the specs through a JSON file in that temp dir, never through the browser.
 * Needs a prior `npm run build` (`npm test` does it).
 */
const HIGH_LIMITS = ['--limit', 'read_per_min=2000', '--limit', 'write_per_min=2000', '--limit', 'publish_per_min=500'];

const ACCOUNTS: Record<string, string[]> = {
  author: HIGH_LIMITS,
  pager: HIGH_LIMITS,
  keeper: HIGH_LIMITS,
  leaky: HIGH_LIMITS,
  // Its own media library, so the editor's upload and insert-menu specs leave the media page's counts alone.
  illustrator: HIGH_LIMITS,
  // Its own list, so the phone list spec leaves the other lists' counts alone.
  pocket: HIGH_LIMITS,
  moderated: ['--moderated', ...HIGH_LIMITS],
  admin: ['--admin', ...HIGH_LIMITS],
  limited: ['--limit', 'read_per_min=3'],
  // Few writes a minute (autosave may take 2 of them), for the autosave spec's write-limit rule.
  metered: ['--limit', 'read_per_min=2000', '--limit', 'write_per_min=4', '--limit', 'publish_per_min=500'],
};

export default async function globalSetup(_config: FullConfig) {
  const service = await startService();
  const accounts: E2EState['accounts'] = {};
  try {
    // Through the operator CLI, as an operator makes them; all at once (each is a process).
    await Promise.all(
      Object.entries(ACCOUNTS).map(async ([handle, flags]) => {
        const result = await cli(service.env, ['account', 'create', handle, ...flags]);
        if (result.code !== 0) throw new Error(`account create ${handle} failed: ${result.stderr || result.stdout}`);
        const created = result.json as { id: string; handle: string; token: string };
        accounts[handle] = { id: created.id, token: created.token };
      }),
    );
  } catch (err) {
    await service.stop();
    throw err;
  }
  const state: E2EState = {
    baseUrl: service.baseUrl,
    dataDir: service.dataDir,
    serviceEnv: { DATA_DIR: service.dataDir },
    accounts,
  };
  const file = path.join(service.dataDir, 'e2e-state.json');
  writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
  process.env[STATE_ENV] = file;
  return async () => {
    await service.stop();
  };
}
