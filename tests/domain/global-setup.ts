import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { provideDatabase } from '../../db/provide-database';
import { removeDataDir, ROOT, tempDataDir } from '../support/service';

/**
 * The domain tests run the services against a real PostgreSQL (an embedded cluster in a temp
 * directory, migrated), without the HTTP service: a rule's test takes seconds, not a build.
 * Writes convert Markdown in the worker pool, whose bundle is built here from the current
 * sources (a stale bundle would test yesterday's conversion).
 */
let dataDir: string | undefined;
let stop: (() => Promise<void>) | undefined;

export async function setup(project: TestProject) {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-server.mjs')], { stdio: 'inherit' });
  dataDir = tempDataDir('publishing-domain-');
  const db = await provideDatabase({ dataDir }, () => {});
  stop = () => db.stop();
  project.provide('domainDatabaseUrl', db.url);
}

export async function teardown() {
  await stop?.();
  if (dataDir) removeDataDir(dataDir);
}

declare module 'vitest' {
  export interface ProvidedContext {
    domainDatabaseUrl: string;
  }
}
