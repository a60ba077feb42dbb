/**
 * The production layout of deploy/ on loopback: Debian's PostgreSQL (initdb/pg_ctl, as the
 * `postgres` user when run as root), Debian's Varnish running deploy/varnish/publishing.vcl
 * (the instances' ports rewritten to free ones), and two instances
 * of the built service sharing the database, the media directory and SESSION_SECRET.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../support/ports';
import { ROOT, startService, type RunningService } from '../support/service';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const VARNISHD = '/usr/sbin/varnishd';
const VARNISHADM = '/usr/bin/varnishadm';

const PUBLIC_HOST = 'blog.example.com';
const CONSOLE_HOST = 'console.example.com';

/** Whether the Debian packages are here (.ci/run installs them when missing). */
export function debianPackagesPresent(): string[] {
  return [`${PG_BIN}/initdb`, VARNISHD].filter((file) => !existsSync(file));
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary as `postgres` when we are root (it refuses to run as root). */
function pgCommand(binary: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', `${PG_BIN}/${binary}`, ...args]] : [`${PG_BIN}/${binary}`, args];
}

export class Postgres {
  readonly dataDir: string;
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.dataDir = path.join(dir, 'pg');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/publishing`;
  }

  async init(): Promise<void> {
    mkdirSync(this.dataDir, { mode: 0o700 });
    if (asRoot) {
      const { uid, gid } = postgresIds();
      chownSync(this.dataDir, uid, gid);
    }
    const [cmd, args] = pgCommand('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    execFileSync(cmd, args, { stdio: 'ignore' });
    this.start();
    const client = new pg.Client({ connectionString: this.url.replace(/\/publishing$/, '/postgres') });
    await client.connect();
    await client.query('CREATE DATABASE publishing');
    await client.end();
  }

  start(): void {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dataDir} -c max_connections=200`;
    const [cmd, args] = pgCommand('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      path.join(this.dataDir, 'log'),
      '-w',
      'start',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }

  stop(): void {
    const [cmd, args] = pgCommand('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', 'stop']);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user (is Debian’s postgresql installed?)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export class Varnish {
  process?: ChildProcess;
  readonly logs: string[] = [];
  constructor(
    readonly dir: string,
    readonly ports: { http: number; app: [number, number] },
  ) {}

  /** deploy/varnish/publishing.vcl as shipped, with only the instances' ports replaced. */
  writeConfig(): string {
    const shipped = readFileSync(path.join(ROOT, 'deploy/varnish/publishing.vcl'), 'utf8');
    const vcl = shipped
      .replace('.port = "3001";', `.port = "${this.ports.app[0]}";`)
      .replace('.port = "3002";', `.port = "${this.ports.app[1]}";`);
    for (const port of this.ports.app) {
      if (!vcl.includes(`.port = "${port}";`)) throw new Error('deploy/varnish/publishing.vcl changed shape');
    }
    const file = path.join(this.dir, 'publishing.vcl');
    writeFileSync(file, vcl);
    return file;
  }

  async start(): Promise<void> {
    const vcl = this.writeConfig();
    // As the shipped unit runs it (deploy/systemd/varnish.service.d), on loopback ports; no
    // privilege separation here (`-j none`), the test's temporary directory is root's.
    // The management interface on a random loopback port, found by varnishadm through `-n`.
    const args = ['-F', '-n', this.workDir, '-a', `127.0.0.1:${this.ports.http}`, '-T', '127.0.0.1:0'];
    args.push('-f', vcl, '-s', 'malloc,64m', '-p', 'backend_idle_timeout=3');
    if (asRoot) args.push('-j', 'none');
    this.process = spawn(VARNISHD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process.stdout!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    this.process.stderr!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    await waitFor(
      async () => {
        if (this.process!.exitCode !== null) throw new Error(`varnishd exited: ${this.logs.join('')}`);
        return canConnect(this.ports.http);
      },
      30_000,
      'varnishd',
    );
  }

  get workDir(): string {
    return path.join(this.dir, 'work');
  }

  /** Whether Varnish's health probe counts the backend (`app1`, `app2`) as healthy now. */
  healthy(backend: string): boolean {
    const list = execFileSync(VARNISHADM, ['-n', this.workDir, 'backend.list'], { encoding: 'utf8' });
    return list.split('\n').some((line) => new RegExp(`\\.${backend}\\s.*\\shealthy\\s`).test(line));
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The whole layout; `instances[i]` is replaced when an instance is restarted. */
export class Layout {
  readonly dir: string;
  postgres!: Postgres;
  varnish!: Varnish;
  instances: (RunningService | null)[] = [null, null];
  appPorts!: [number, number];
  env!: Record<string, string>;

  constructor() {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'publishing-deploy-'));
    // PostgreSQL runs as another user: it must traverse to its data directory.
    chmodSync(this.dir, 0o755);
  }

  async start(): Promise<void> {
    this.postgres = new Postgres(this.dir, await freePort());
    await this.postgres.init();
    this.appPorts = [await freePort(), await freePort()];
    this.varnish = new Varnish(path.join(this.dir, 'varnish'), { http: await freePort(), app: this.appPorts });
    mkdirSync(this.varnish.dir);
    mkdirSync(path.join(this.dir, 'shared'));
    this.env = {
      DATABASE_URL: this.postgres.url,
      DATA_DIR: path.join(this.dir, 'shared'),
      SESSION_SECRET: randomBytes(48).toString('base64'),
      CACHE_PURGE_URLS: `http://127.0.0.1:${this.varnish.ports.http}`,
      // As deploy/publishing.env.example: health fails this long before the listener closes.
      SHUTDOWN_DRAIN_MS: '2000',
      // As the example too: readers are told apart by the address Varnish forwards.
      TRUSTED_PROXIES: '127.0.0.1',
      LOG_LEVEL: 'silent',
      CONTENT_POOL_THREADS: '1',
    };
    await this.varnish.start();
    // One after the other: the first applies the migrations.
    await this.startInstance(0);
    await this.startInstance(1);
    await this.untilInRotation();
  }

  /** Until Varnish's health probes count every running instance in the rotation again. */
  async untilInRotation(): Promise<void> {
    await waitFor(
      async () => this.instances.every((instance, i) => !instance || this.varnish.healthy(`app${i + 1}`)),
      30_000,
      'the instances in rotation',
    );
  }

  async startInstance(i: 0 | 1): Promise<RunningService> {
    const service = await startService({ ...this.env, PORT: String(this.appPorts[i]), HOST: '127.0.0.1' });
    this.instances[i] = service;
    return service;
  }

  async stopInstance(i: 0 | 1, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const service = this.instances[i];
    this.instances[i] = null;
    return service ? service.stop(signal) : null;
  }

  /** The CLI as an operator runs it on this layout (it purges through CACHE_PURGE_URLS too). */
  cliEnv(): Record<string, string | undefined> {
    return { ...process.env, ...this.env };
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.stopInstance(0), this.stopInstance(1)]);
    await this.varnish?.stop().catch(() => {});
    try {
      this.postgres?.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A request through Varnish to one of the two hosts (node:http: fetch cannot set `Host`). A
 * connection failure resolves with status 0, so load counts it instead of throwing. One
 * connection per request: no keep-alive race in the client itself.
 */
export function through(
  layout: Layout,
  host: 'public' | 'console',
  method: string,
  pathname: string,
  opts: { token?: string; json?: unknown; body?: Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { host: host === 'public' ? PUBLIC_HOST : CONSOLE_HOST, ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = Buffer.from(JSON.stringify(opts.json));
  }
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: layout.varnish.ports.http,
        method,
        path: pathname,
        headers,
        agent: false,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, headers: {}, text: String(err) }));
    req.end(body);
  });
}
