/**
 * The embedded cluster (db/embedded-postgres.ts) binds its port only after choosing it (and,
 * for a new cluster, after initdb): a port taken in between is chosen again, while a port the
 * caller asked for is refused as it is.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { freePort } from '../support/ports';
import { removeDataDir, tempDataDir } from '../support/service';

describe('the embedded cluster’s port', () => {
  let blocker: net.Server;
  let blocked: number;
  const dirs: string[] = [];
  beforeAll(async () => {
    blocked = await freePort();
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(blocked, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    for (const dir of dirs) removeDataDir(dir);
  });

  it('is chosen again when another process took it before PostgreSQL could bind it', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const chosen: number[] = [];
    const lines: string[] = [];
    const db = await startEmbeddedPostgres(path.join(dir, 'pg'), (line) => lines.push(line), {
      choosePort: async () => {
        const port = chosen.length === 0 ? blocked : await freePort();
        chosen.push(port);
        return port;
      },
    });
    try {
      expect(chosen).toHaveLength(2);
      expect(db.port).toBe(chosen[1]);
      expect(lines).toContain(`port ${blocked} was taken before PostgreSQL could bind it; trying another`);
    } finally {
      await db.stop();
    }
  });

  it('is refused with PostgreSQL’s own words when the caller asked for a taken one', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const start = startEmbeddedPostgres(path.join(dir, 'pg'), () => {}, { port: blocked });
    await expect(start).rejects.toThrow(/Address already in use/);
  });
});
