import type { TestProject } from 'vitest/node';
import { provideDatabase } from '../../db/provide-database';
import { removeDataDir, tempDataDir } from '../support/service';
import { buildTestContentWorker, type TestContentWorker } from '../support/content-pool';

/**
 * The domain tests run the services against a real PostgreSQL (an embedded cluster in a temp
 * directory, migrated), without the HTTP service: a rule's test takes seconds, not a build.
 * Writes convert Markdown in the worker pool, whose bundle is built here from the current
 * sources (a stale bundle would test yesterday's conversion).
 */
let dataDir: string | undefined;
let worker: TestContentWorker | undefined;
let stop: (() => Promise<void>) | undefined;

export async function setup(project: TestProject) {
  worker = buildTestContentWorker();
  project.provide('domainContentWorker', worker.path);
  dataDir = tempDataDir('publishing-domain-');
  const db = await provideDatabase({ dataDir }, () => {});
  stop = () => db.stop();
  project.provide('domainDatabaseUrl', db.url);
}

export async function teardown() {
  await stop?.();
  if (dataDir) removeDataDir(dataDir);
  worker?.remove();
}

declare module 'vitest' {
  export interface ProvidedContext {
    domainDatabaseUrl: string;
    /** The conversion worker bundled from the current sources for this run's domain tests. */
    domainContentWorker: string;
  }
}
