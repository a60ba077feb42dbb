/**
 * The embedded cluster (db/embedded-postgres.ts) binds its port only after choosing it (and,
 * for a new cluster, after initdb): a port taken in between is chosen again, while a port the
 * caller asked for is refused as it is. The service's statement pools reach it through its
 * Unix socket when the cluster directory's path allows one.
 */
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../db/embedded-postgres';
import { provideDatabase } from '../../db/provide-database';
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

describe('the embedded cluster’s Unix socket', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) removeDataDir(dir);
  });

  /** The server's address as PostgreSQL sees this connection: null through a Unix socket. */
  async function serverAddress(url: string): Promise<string | null> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ addr: string | null }>('SELECT host(inet_server_addr()) AS addr');
      return rows[0]!.addr;
    } finally {
      await client.end();
    }
  }

  it('is what the statement pools connect with, while TCP stays open, and a second process finds it', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const dataDir = path.join(dir, 'pg');
    const provided = await provideDatabase({ dataDir }, () => {});
    try {
      expect(provided.url).toMatch(/\?host=/);
      expect(await serverAddress(provided.url)).toBeNull();
      // Another process on the same DATA_DIR (the CLI while the server runs) connects to the running postmaster.
      const again = await startEmbeddedPostgres(dataDir, () => {});
      expect(again.localUrl).toBe(provided.url);
      expect(await serverAddress(again.url)).toBe('127.0.0.1');
    } finally {
      await provided.stop();
    }
  });

  it('is left out when its path would not fit a socket address: the pools then use TCP', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const db = await startEmbeddedPostgres(path.join(dir, 'd'.repeat(100)), () => {});
    try {
      expect(db.localUrl).toBe(db.url);
      expect(await serverAddress(db.localUrl)).toBe('127.0.0.1');
    } finally {
      await db.stop();
    }
  });
});
