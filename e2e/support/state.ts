import { readFileSync } from 'node:fs';

/** What e2e/global-setup.ts hands to the specs (through a file named in this variable). */
export const STATE_ENV = 'PUBLISHING_E2E_STATE';

export interface E2EState {
  baseUrl: string;
  dataDir: string;
  serviceEnv: Record<string, string>;
  accounts: Record<string, { id: string; token: string }>;
}

let cached: E2EState | undefined;

export function e2eState(): E2EState {
  if (!cached) {
    const file = process.env[STATE_ENV];
    if (!file)
      throw new Error(
        `${STATE_ENV} is not set: run the specs through playwright.config.ts (its globalSetup starts the service)`,
      );
    cached = JSON.parse(readFileSync(file, 'utf8')) as E2EState;
  }
  return cached;
}

export function tokenOf(handle: string): string {
  const account = e2eState().accounts[handle];
  if (!account) throw new Error(`no e2e account ${handle}`);
  return account.token;
}
