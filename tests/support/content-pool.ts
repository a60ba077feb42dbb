import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ContentPool, contentPoolSettings } from '../../server/content';
import { ROOT } from './service';

/** A conversion worker bundled for one test file or setup: its path, and its removal once its pools are closed. */
export interface TestContentWorker {
  path: string;
  remove(): void;
}

/**
 * Bundles the conversion worker from the current sources (a stale bundle would test yesterday's
 * conversion) into a directory of its own under dist/. Never dist/content-worker.mjs itself: the
 * service instances of the same run load that one, and must not meet it half rewritten.
 */
export function buildTestContentWorker(): TestContentWorker {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, 'dist', 'test-worker-'));
  const file = path.join(dir, 'content-worker.mjs');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-server.mjs'), `--content-worker=${file}`], {
    stdio: 'ignore',
  });
  return { path: file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A pool on a worker built for it alone, which goes when the pool closes. */
class TestContentPool extends ContentPool {
  constructor(private readonly worker: TestContentWorker) {
    super(contentPoolSettings(worker.path));
  }

  override async close(): Promise<void> {
    await super.close();
    this.worker.remove();
  }
}

/**
 * A conversion pool of the test process's own (the service builds its pool once, in
 * runtime/create-app.ts), on a worker bundled from the current sources: built for it unless a
 * setup built one already and hands its path in. Close it after the file.
 */
export function testContentPool({ workerPath }: { workerPath?: string } = {}): ContentPool {
  return workerPath ? new ContentPool(contentPoolSettings(workerPath)) : new TestContentPool(buildTestContentWorker());
}
