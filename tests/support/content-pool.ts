import { execFileSync } from 'node:child_process';
import { ContentPool, contentPoolSettings } from '../../server/content';

/**
 * A conversion pool of the test process's own (the service builds its pool once, in
 * runtime/create-app.ts), on the worker bundled from the current sources: built here unless the
 * project's global setup already built it. Close it after the file.
 */
export function testContentPool({ build = true }: { build?: boolean } = {}): ContentPool {
  if (build) execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'ignore' });
  return new ContentPool(contentPoolSettings());
}
