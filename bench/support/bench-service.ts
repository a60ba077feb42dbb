/**
 * What every service benchmark starts with and ends with: an embedded PostgreSQL of its own in a
 * temporary directory, one service instance on loopback (the code `npm start` runs, from
 * `npm run build`), and the CLI's environment for that database; `stop()` removes all of it.
 */
import path from 'node:path';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { removeDataDir, startService, tempDataDir, type RunningService } from '../../tests/support/service';

export interface BenchService {
  dataDir: string;
  db: { url: string };
  service: RunningService;
  /** For `cli(env, …)`: the same DATA_DIR and database as the service. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startBenchService(prefix: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = tempDataDir(prefix);
  const db = await startEmbeddedPostgres(path.join(dataDir, 'bench-pg'), () => {});
  const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...env });
  return {
    dataDir,
    db,
    service,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: db.url },
    stop: async () => {
      await service.stop();
      await db.stop();
      removeDataDir(dataDir);
    },
  };
}

/** Runs a benchmark; a failure is printed and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
