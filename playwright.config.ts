import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests in Chromium. Playwright cannot download its browser here, so the system
 * Chromium is used when present (Debian: /usr/bin/chromium), Playwright's own otherwise.
 */
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export default defineConfig({
  testDir: 'e2e',
  // Starts the real service once (temp DATA_DIR, embedded PostgreSQL) and creates the accounts.
  globalSetup: './e2e/global-setup.ts',
  timeout: 120_000,
  fullyParallel: false,
  workers: 1,
  // The part-times row for the table `.ci/run` prints (writes only when it sets PART_TIMES_FILE).
  reporter: [['list'], ['./e2e/support/part-times-reporter.ts']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    screenshot: 'on',
    launchOptions: {
      executablePath: systemChromium,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-gpu',
        '--no-first-run',
      ],
    },
  },
});
