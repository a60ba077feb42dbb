import type { TestProject } from 'vitest/node';
import { startService, type RunningService } from '../support/service';

/** One service (and its embedded PostgreSQL) for the whole integration run. */
let service: RunningService | undefined;

export async function setup(project: TestProject) {
  service = await startService();
  project.provide('baseUrl', service.baseUrl);
  project.provide('serviceEnv', JSON.stringify({ DATA_DIR: service.dataDir, DATABASE_URL: service.env.DATABASE_URL ?? '' }));
}

export async function teardown() {
  await service?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    serviceEnv: string;
  }
}
