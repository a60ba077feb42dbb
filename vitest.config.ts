import path from 'node:path';
import { defineConfig } from 'vitest/config';
// `.js`: Vite asks config imports for an extension (TypeScript resolves it to the .ts file).
import { partTimes } from './tests/support/part-times-reporter.js';
import { TakingTurns } from './tests/support/file-order.js';

/**
 * Four projects: `unit` (plain modules, no server), `domain` (the services against a real
 * PostgreSQL, no HTTP), `integration` (HTTP against the real service on a real PostgreSQL,
 * started once by the global setup) and `deployment` (deploy/'s hitch, Varnish, PgBouncer,
 * PostgreSQL and two instances, started from the Debian packages).
 *
 * `partTimes` in every project (tests/support/part-times-reporter.ts): when `.ci/run` sets
 * PART_TIMES_FILE, it adds a reporter that writes each project's times for the table `.ci/run`
 * prints at its end; the console output stays as it is.
 */
const alias = { '@': path.resolve(import.meta.dirname) };

/**
 * The four projects run together, two files at a time (one group: Vitest wants one worker count
 * for the projects of a group). Two is what two cores hold: the tests that measure the service or
 * a thread under its own load (statement batches, queue limits, conversion budgets, a thread's
 * CPU time) saw the machine's load instead when three files ran at once, with Playwright beside
 * them (scripts/side-by-side.mjs). deployment's one file mostly waits (services starting and
 * restarting, a page growing stale); the other place keeps going meanwhile.
 */
const WORKERS = 2;

/**
 * A worker process runs file after file, keeping the modules they import (`isolate: false`): a
 * fresh process and fresh imports for each of 140 files cost 75 s of CPU a run (README, "The test
 * suite's time"). Every file closes what it opens (pools, services, listeners) in its own hooks,
 * and the files that stub the environment drop the modules read under it (vi.resetModules), so
 * the next file of the worker imports them anew.
 */
const ISOLATE = false;

export default defineConfig({
  resolve: { alias },
  test: {
    // Integration and unit files take turns, so that waits and CPU work overlap (file-order.ts).
    sequence: { sequencer: TakingTurns },
    projects: [
      {
        resolve: { alias },
        plugins: [partTimes],
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          isolate: ISOLATE,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: WORKERS,
        },
      },
      {
        resolve: { alias },
        plugins: [partTimes],
        test: {
          name: 'domain',
          include: ['tests/domain/**/*.test.ts'],
          environment: 'node',
          isolate: ISOLATE,
          globalSetup: ['tests/domain/global-setup.ts'],
          env: { SESSION_SECRET: 'domain-test-secret-of-at-least-32-bytes!' },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: WORKERS,
        },
      },
      {
        resolve: { alias },
        plugins: [partTimes],
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          isolate: ISOLATE,
          globalSetup: ['tests/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files share one service; limits are per account, so files can run side by side.
          maxWorkers: WORKERS,
        },
      },
      {
        resolve: { alias },
        plugins: [partTimes],
        test: {
          // deploy/ started for real: Debian's hitch, Varnish, PgBouncer and PostgreSQL, two
          // built instances.
          name: 'deployment',
          include: ['tests/deployment/**/*.test.ts'],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 240_000,
          maxWorkers: WORKERS,
        },
      },
    ],
  },
});
