import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests in Chromium. Playwright cannot download its browser here, so Debian's builds
 * are used when present, Playwright's own otherwise:
 * - the headless shell (package chromium-headless-shell, from the same sources as chromium) for
 *   every spec but one: it is what Playwright itself runs for headless tests, the same Blink and
 *   V8 without the desktop browser's layers, and it takes about half the CPU of
 *   `chromium --headless` for the same specs (175 s against 320 s of browser CPU for the whole
 *   suite; README "The test suite's time");
 * - the desktop browser (/usr/bin/chromium) for the reader-counter spec, which measures where
 *   readers' browsers request the lazily loaded beacons: the headless shell has no estimate of
 *   its connection and loads them from about 2,500 px away, the desktop browser from the 1,250 px
 *   it uses on a fast connection, as most readers' browsers do.
 * Either build stands in for the other when only one is installed.
 */
const headlessShell = existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : undefined;
const desktop = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const READER_COUNTERS = /reader-counters\.spec\.ts$/;

const launchOptions = (executablePath: string | undefined) => ({
  executablePath,
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-gpu',
    '--no-first-run',
  ],
});

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
    // A failed test's page is kept; specs that show a page as evidence take their own screenshot.
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: READER_COUNTERS,
      use: { launchOptions: launchOptions(headlessShell ?? desktop) },
    },
    {
      name: 'chromium-desktop',
      testMatch: READER_COUNTERS,
      use: { launchOptions: launchOptions(desktop ?? headlessShell) },
    },
  ],
});
