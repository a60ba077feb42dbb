import type { TestProject } from 'vitest/node';
import { startService, type RunningService } from '../support/service';
import { finishConformanceRun, startConformanceRun } from '../support/conformance';

/** One service (and its embedded PostgreSQL) for the whole integration run. */
let service: RunningService | undefined;

export async function setup(project: TestProject) {
  service = await startService();
  project.provide('baseUrl', service.baseUrl);
  // Every response is checked against the served OpenAPI document; workers record where this says.
  await startConformanceRun(service.baseUrl);
  project.provide(
    'serviceEnv',
    JSON.stringify({ DATA_DIR: service.dataDir, DATABASE_URL: service.env.DATABASE_URL ?? '' }),
  );
}

export async function teardown() {
  finishConformanceRun();
  await service?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    serviceEnv: string;
  }
}
