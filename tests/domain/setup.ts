/**
 * Runs in every domain test file. Paging cursors are signed with the application secret: the
 * project sets a fixed one (vitest.config.ts), which keeps these tests off DATA_DIR. The
 * conversion pool's worker threads are closed after each file, so the file's run can end.
 */
import { afterAll } from 'vitest';
import { closeContentPool } from '../../server/content';

afterAll(async () => {
  await closeContentPool();
});
