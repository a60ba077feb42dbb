/**
 * The production layout of deploy/, started from the shipped files themselves on loopback:
 *
 *   hitch (deploy/hitch/hitch.conf) ─PROXY v2─▶ Varnish `tls` ┐
 *   clients ─────────────────────────────────▶ Varnish `http` ├─ deploy/varnish/publishing.vcl,
 *   the instances' purges ───────────────────▶ Varnish `purge`┘  flags of the systemd drop-in
 *        ▼ round robin, health probes
 *   two instances as deploy/systemd/publishing@.service starts them (publishing.env.example)
 *        ▼ DATABASE_URL
 *   PgBouncer (deploy/pgbouncer/pgbouncer.ini, transaction pooling, SCRAM userlist)
 *        ▼
 *   Debian's PostgreSQL 15 (scram-sha-256; role `publishing` owning database `publishing`)
 *
 * Every value the test changes in a shipped file is in OVERRIDES below, with its reason; the
 * rewriting goes through `override()`, which refuses anything not listed there, and the test
 * prints what each entry became.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../support/ports';
import { ROOT, type RunningService } from '../support/service';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const VARNISHADM = '/usr/bin/varnishadm';
const PGBOUNCER = '/usr/sbin/pgbouncer';
const HITCH = '/usr/sbin/hitch';
const OPENSSL = '/usr/bin/openssl';

export const PUBLIC_HOST = 'blog.example.com';
export const CONSOLE_HOST = 'console.example.com';

/** The shipped files the layout starts (paths relative to the repository). */
export const SHIPPED = {
  vcl: 'deploy/varnish/publishing.vcl',
  varnishDropIn: 'deploy/systemd/varnish.service.d/publishing.conf',
  unit: 'deploy/systemd/publishing@.service',
  procfile: 'deploy/Procfile',
  env: 'deploy/publishing.env.example',
  pgbouncer: 'deploy/pgbouncer/pgbouncer.ini',
  hitch: 'deploy/hitch/hitch.conf',
} as const;

type ShippedFile = (typeof SHIPPED)[keyof typeof SHIPPED];

export const readShipped = (file: ShippedFile) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * Every deviation of the test from the shipped files, with why. Ports are free loopback ports
 * (below the ephemeral range, tests/support/ports.ts) because the shipped ones (80, 443, 3001,
 * 5432, 6432, …) may be taken on a developer's or CI's machine, and a test listens on loopback
 * only; paths are in the test's temporary directory because /etc, /var and /opt are the
 * machine's. Nothing else is changed.
 */
const OVERRIDES = [
  { file: SHIPPED.vcl, setting: 'backend app1 .port', reason: 'the first instance’s free port' },
  { file: SHIPPED.vcl, setting: 'backend app2 .port', reason: 'the second instance’s free port' },
  {
    file: SHIPPED.varnishDropIn,
    setting: '-a http=',
    reason: 'a free port, on 127.0.0.1 only (a test listens on loopback alone)',
  },
  { file: SHIPPED.varnishDropIn, setting: '-a tls=', reason: 'a free port (`,PROXY` kept)' },
  { file: SHIPPED.varnishDropIn, setting: '-a purge=', reason: 'a free port' },
  { file: SHIPPED.varnishDropIn, setting: '-T', reason: 'a free port for the management interface' },
  {
    file: SHIPPED.varnishDropIn,
    setting: '-f',
    reason: 'the shipped VCL, backend ports rewritten as above, in the test directory (not /etc/varnish)',
  },
  {
    file: SHIPPED.varnishDropIn,
    setting: '-S',
    reason: 'a secret generated in the test directory (as Debian’s package makes /etc/varnish/secret)',
  },
  {
    file: SHIPPED.varnishDropIn,
    setting: '-n (added)',
    reason: 'a working directory of its own, so varnishadm reaches this varnishd and not the machine’s',
  },
  {
    file: SHIPPED.varnishDropIn,
    setting: '-j',
    reason: 'kept when the test runs as root; `-j none` otherwise (the unix jail needs root)',
  },
  { file: SHIPPED.hitch, setting: 'frontend', reason: 'a free port on 127.0.0.1 (not every address’s 443)' },
  { file: SHIPPED.hitch, setting: 'backend', reason: 'Varnish’s `tls` port above' },
  {
    file: SHIPPED.hitch,
    setting: 'user, group',
    reason: 'kept when the test runs as root; removed otherwise (dropping privileges needs root)',
  },
  {
    file: SHIPPED.hitch,
    setting: 'pem-file',
    reason: 'a self-signed certificate for blog.example.com made with openssl at test time',
  },
  { file: SHIPPED.pgbouncer, setting: '[databases] publishing port', reason: 'the test cluster’s free port' },
  { file: SHIPPED.pgbouncer, setting: 'listen_port', reason: 'a free port' },
  {
    file: SHIPPED.pgbouncer,
    setting: 'unix_socket_dir, pidfile, logfile, auth_file',
    reason: 'in the test directory (auth_file: the role’s SCRAM secret read from pg_authid, as the comment says)',
  },
  {
    file: SHIPPED.unit,
    setting: 'User=, Group=',
    reason:
      'the test’s own user (PgBouncer and PostgreSQL run as `postgres`, as Debian’s units do); no `publishing` account is created on the machine',
  },
  { file: SHIPPED.unit, setting: 'WorkingDirectory=', reason: 'this checkout, built by `npm test` (not /opt)' },
  {
    file: SHIPPED.unit,
    setting: 'ExecStart= /usr/bin/node',
    reason: 'the node running the tests, when that is another file (nvm, a CI image)',
  },
  { file: SHIPPED.unit, setting: '%i', reason: 'the instances’ free ports (the VCL’s backends)' },
  {
    file: SHIPPED.unit,
    setting: 'EnvironmentFile=',
    reason: 'deploy/publishing.env.example itself, parsed as systemd reads it, with the values below',
  },
  {
    file: SHIPPED.unit,
    setting: 'environment: NEXT_TELEMETRY_DISABLED',
    reason: 'passed on when the test’s environment sets it (CI does: nothing leaves this machine)',
  },
  {
    file: SHIPPED.env,
    setting: 'DATABASE_URL',
    reason: 'the role’s test password (CHANGE-ME) and PgBouncer’s free port',
  },
  { file: SHIPPED.env, setting: 'SESSION_SECRET', reason: '48 random bytes (CHANGE-ME)' },
  { file: SHIPPED.env, setting: 'METRICS_TOKEN', reason: 'a random token (CHANGE-ME)' },
  { file: SHIPPED.env, setting: 'DATA_DIR', reason: 'the test directory’s shared media directory' },
  { file: SHIPPED.env, setting: 'CACHE_PURGE_URLS', reason: 'Varnish’s `purge` port above' },
] as const satisfies readonly { file: ShippedFile; setting: string; reason: string }[];

type Setting = (typeof OVERRIDES)[number]['setting'];

const applied = new Map<Setting, { shipped: string; test: string }>();

/** The one way a shipped value is changed: only as OVERRIDES allows, and recorded for the report. */
function override(file: ShippedFile, setting: Setting, shipped: string, test: string): string {
  if (!OVERRIDES.some((o) => o.file === file && o.setting === setting))
    throw new Error(`${file} ${setting}: not in OVERRIDES`);
  const before = applied.get(setting);
  if (shipped !== test && !before?.test.split(', ').includes(test))
    applied.set(setting, { shipped, test: before ? `${before.test}, ${test}` : test });
  return test;
}

/** The overrides list with what each entry became in this run (printed with the figures). */
export function overridesReport(): string[] {
  return OVERRIDES.map((o) => {
    const used = applied.get(o.setting);
    const change = used ? `${used.shipped} → ${used.test}` : 'kept as shipped';
    return `${o.file} ${o.setting}: ${change} (${o.reason})`;
  });
}

/** The packages missing here (scripts/system-packages.mjs installs them; `npm test` runs it first). */
export function missingPackages(): string[] {
  const needed: [string, string][] = [
    [`${PG_BIN}/initdb`, 'postgresql-15'],
    [`${PG_BIN}/psql`, 'postgresql-client-15'],
    ['/usr/sbin/varnishd', 'varnish'],
    [PGBOUNCER, 'pgbouncer'],
    [HITCH, 'hitch'],
    [OPENSSL, 'openssl'],
  ];
  return needed.filter(([file]) => !existsSync(file)).map(([file, pkg]) => `${pkg} (${file})`);
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function userIds(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no ${name} user (is Debian’s postgresql installed?)`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** As `postgres` when we are root (PostgreSQL and PgBouncer refuse root; Debian runs both as postgres). */
const asPostgres = () => (asRoot ? userIds('postgres') : {});

function ownedByPostgres(dir: string, mode = 0o700): string {
  mkdirSync(dir, { recursive: true, mode });
  if (asRoot) {
    const { uid, gid } = userIds('postgres');
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Words of a command line as systemd splits them (no quoting in the shipped files). */
const words = (line: string) => line.trim().split(/\s+/).filter(Boolean);

// ——— systemd unit files ———

/** `[Section] Key=value` lines; a key may repeat (systemd's ExecStart= resets the list). */
export function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[([^\]]+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq <= 0) throw new Error(`not a unit file line: ${raw}`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    const list = current.get(key) ?? [];
    if (value === '' && key === 'ExecStart') list.length = 0;
    else list.push(value);
    current.set(key, list);
  }
  return sections;
}

function unitValue(unit: Map<string, Map<string, string[]>>, section: string, key: string): string[] {
  return unit.get(section)?.get(key) ?? [];
}

/** An EnvironmentFile as systemd reads it: KEY=VALUE lines, `#`/`;` comments, quotes removed. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`not an environment line: ${raw}`);
    let value = line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    env[line.slice(0, eq).trim()] = value;
  }
  return env;
}

/** What the unit starts for instance `%i` = `instance`: command, directory, environment. */
export function unitCommand(instance: string): {
  command: string[];
  workingDirectory: string;
  environmentFile: string;
  environment: Record<string, string>;
} {
  const unit = parseUnit(readShipped(SHIPPED.unit));
  const exec = unitValue(unit, 'Service', 'ExecStart');
  const dirs = unitValue(unit, 'Service', 'WorkingDirectory');
  const files = unitValue(unit, 'Service', 'EnvironmentFile');
  if (exec.length !== 1 || dirs.length !== 1 || files.length !== 1)
    throw new Error(`${SHIPPED.unit}: one ExecStart=, WorkingDirectory= and EnvironmentFile= expected`);
  const environment: Record<string, string> = {};
  for (const line of unitValue(unit, 'Service', 'Environment')) {
    for (const assignment of words(line.replaceAll('%i', instance))) {
      const eq = assignment.indexOf('=');
      environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
  }
  return {
    command: words(exec[0]!.replaceAll('%i', instance)),
    workingDirectory: dirs[0]!,
    environmentFile: files[0]!,
    environment,
  };
}

/** Procfile lines: `name: VAR=value … command args`. */
export function parseProcfile(
  text: string,
): { name: string; environment: Record<string, string>; command: string[] }[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    .map((line) => {
      const colon = line.indexOf(':');
      const parts = words(line.slice(colon + 1));
      const environment: Record<string, string> = {};
      while (parts.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(parts[0]!)) {
        const assignment = parts.shift()!;
        const eq = assignment.indexOf('=');
        environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
      }
      return { name: line.slice(0, colon).trim(), environment, command: parts };
    });
}

/** The varnishd command line of the drop-in (its last non-empty ExecStart=). */
export function dropInCommand(): string[] {
  const exec = unitValue(parseUnit(readShipped(SHIPPED.varnishDropIn)), 'Service', 'ExecStart');
  if (exec.length !== 1) throw new Error(`${SHIPPED.varnishDropIn}: one ExecStart= after the reset expected`);
  return words(exec[0]!);
}

/** The instances' ports in the VCL's backends (app1, app2). */
export function vclBackendPorts(vcl = readShipped(SHIPPED.vcl)): Record<string, string> {
  const ports: Record<string, string> = {};
  for (const m of vcl.matchAll(/backend (\w+) \{[^}]*?\.port = "(\d+)";/g)) ports[m[1]!] = m[2]!;
  return ports;
}

/**
 * `systemd-analyze verify` of the shipped unit (as instance `publishing@<port>`) and of Debian's
 * varnish.service with the drop-in, both found through SYSTEMD_UNIT_PATH in a temporary
 * directory. Returns what it printed, less what only says this machine is not the server (the
 * binaries the units name are not installed here), or null when systemd-analyze is missing.
 */
export function systemdVerify(dir: string): { checked: string[]; problems: string[] } | null {
  const analyze = '/usr/bin/systemd-analyze';
  if (!existsSync(analyze)) return null;
  const units = path.join(dir, 'units');
  mkdirSync(path.join(units, 'varnish.service.d'), { recursive: true });
  writeFileSync(path.join(units, 'publishing@.service'), readShipped(SHIPPED.unit));
  writeFileSync(path.join(units, 'varnish.service.d', 'publishing.conf'), readShipped(SHIPPED.varnishDropIn));
  const checked = ['publishing@3001.service'];
  // The drop-in extends Debian's varnish.service (installed with the varnish package).
  if (existsSync('/lib/systemd/system/varnish.service')) {
    writeFileSync(path.join(units, 'varnish.service'), readFileSync('/lib/systemd/system/varnish.service'));
    checked.push('varnish.service');
  }
  const problems: string[] = [];
  for (const unit of checked) {
    const result = spawnSync(analyze, ['verify', '--man=no', unit], {
      env: { ...process.env, SYSTEMD_UNIT_PATH: `${units}:`, SYSTEMD_LOG_COLOR: '0' },
      encoding: 'utf8',
    });
    const lines = `${result.stdout}\n${result.stderr}`
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      // A unit naming a binary this machine lacks is what the unit says, not an error in it.
      .filter((l) => {
        const binary = /Command (\/usr\/bin\/node|\/usr\/sbin\/varnishd) is not executable/.exec(l)?.[1];
        return binary === undefined || existsSync(binary);
      });
    problems.push(...lines.map((l) => `${unit}: ${l}`));
  }
  return { checked, problems };
}

// ——— PostgreSQL ———

export class Postgres {
  readonly dataDir: string;
  readonly superuserPassword = randomBytes(18).toString('base64url');
  /** The `publishing` role's password (the env example's CHANGE-ME). */
  readonly rolePassword = randomBytes(18).toString('base64url');
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.dataDir = path.join(dir, 'pg');
  }

  /** A client of the superuser, straight to PostgreSQL (the test's own look at the database). */
  superuser(database = 'publishing'): pg.Client {
    return new pg.Client({
      host: '127.0.0.1',
      port: this.port,
      user: 'postgres',
      password: this.superuserPassword,
      database,
    });
  }

  /**
   * initdb with scram-sha-256 for every connection, then as the env example's comment says
   * (`createuser publishing --pwprompt && createdb -O publishing publishing`) and the
   * PgBouncer file's (`ALTER ROLE publishing SET statement_timeout = '15s'`). Returns the role's
   * SCRAM secret, for PgBouncer's userlist.
   */
  async init(): Promise<string> {
    ownedByPostgres(this.dataDir);
    const pwfile = path.join(this.dir, 'pg-superuser-password');
    writeFileSync(pwfile, `${this.superuserPassword}\n`, { mode: 0o600 });
    if (asRoot) chownSync(pwfile, userIds('postgres').uid, userIds('postgres').gid);
    execFileSync(
      `${PG_BIN}/initdb`,
      ['-D', this.dataDir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8'],
      { stdio: 'ignore', ...asPostgres() },
    );
    rmSync(pwfile);
    this.start();
    const admin = this.superuser('postgres');
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE publishing LOGIN PASSWORD '${this.rolePassword}'`);
      await admin.query('CREATE DATABASE publishing OWNER publishing');
      await admin.query(`ALTER ROLE publishing SET statement_timeout = '15s'`);
      const secret = await admin.query<{ rolpassword: string }>(
        `SELECT rolpassword FROM pg_authid WHERE rolname = 'publishing'`,
      );
      const scram = secret.rows[0]!.rolpassword;
      if (!scram.startsWith('SCRAM-SHA-256$')) throw new Error(`not a SCRAM secret: ${scram.slice(0, 16)}`);
      return scram;
    } finally {
      await admin.end();
    }
  }

  start(): void {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dataDir} -c max_connections=200`;
    execFileSync(
      `${PG_BIN}/pg_ctl`,
      ['-D', this.dataDir, '-o', options, '-l', path.join(this.dataDir, 'log'), '-w', 'start'],
      { stdio: 'ignore', ...asPostgres() },
    );
  }

  stop(): void {
    execFileSync(`${PG_BIN}/pg_ctl`, ['-D', this.dataDir, '-m', 'fast', '-w', 'stop'], {
      stdio: 'ignore',
      ...asPostgres(),
    });
  }
}

// ——— PgBouncer ———

/** Sets `key = value` in an ini file's text, which must have that key once. */
function setIni(text: string, key: string, value: string): { text: string; shipped: string } {
  const pattern = new RegExp(`^${key}\\s*=\\s*(.*)$`, 'm');
  const match = pattern.exec(text);
  if (!match) throw new Error(`${key} is not set in the shipped file`);
  return { text: text.replace(pattern, `${key} = ${value}`), shipped: match[1]!.trim() };
}

export class PgBouncer {
  process?: ChildProcess;
  readonly logs: string[] = [];
  readonly ini: string;
  constructor(
    readonly dir: string,
    readonly port: number,
    readonly postgresPort: number,
  ) {
    this.ini = path.join(dir, 'pgbouncer.ini');
  }

  /** deploy/pgbouncer/pgbouncer.ini with only the overrides; the userlist from the SCRAM secret. */
  writeConfig(scramSecret: string): void {
    ownedByPostgres(this.dir, 0o755);
    let text = readShipped(SHIPPED.pgbouncer);
    const database = /^publishing = host=127\.0\.0\.1 port=(\d+) dbname=publishing$/m.exec(text);
    if (!database) throw new Error(`${SHIPPED.pgbouncer}: [databases] publishing changed shape`);
    text = text.replace(
      database[0],
      database[0].replace(
        `port=${database[1]}`,
        `port=${override(SHIPPED.pgbouncer, '[databases] publishing port', database[1]!, String(this.postgresPort))}`,
      ),
    );
    let set = setIni(text, 'listen_port', String(this.port));
    text = set.text;
    override(SHIPPED.pgbouncer, 'listen_port', set.shipped, String(this.port));
    const paths: [string, string][] = [
      ['unix_socket_dir', this.dir],
      ['pidfile', path.join(this.dir, 'pgbouncer.pid')],
      ['logfile', path.join(this.dir, 'pgbouncer.log')],
      ['auth_file', path.join(this.dir, 'userlist.txt')],
    ];
    const shipped: string[] = [];
    for (const [key, value] of paths) {
      set = setIni(text, key, value);
      text = set.text;
      shipped.push(set.shipped);
    }
    override(
      SHIPPED.pgbouncer,
      'unix_socket_dir, pidfile, logfile, auth_file',
      shipped.join(', '),
      paths.map(([, v]) => v).join(', '),
    );
    writeFileSync(this.ini, text);
    // As the shipped file's comment makes it: "rolname" "rolpassword".
    writeFileSync(path.join(this.dir, 'userlist.txt'), `"publishing" "${scramSecret}"\n`, { mode: 0o600 });
    if (asRoot) {
      const { uid, gid } = userIds('postgres');
      chownSync(path.join(this.dir, 'userlist.txt'), uid, gid);
    }
  }

  /** As Debian's pgbouncer.service: `pgbouncer <ini>` in the foreground, as postgres. */
  async start(): Promise<void> {
    const child = spawn(PGBOUNCER, [this.ini], { stdio: ['ignore', 'pipe', 'pipe'], ...asPostgres() });
    this.process = child;
    child.stdout!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    child.stderr!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${this.logs.join('')}${this.logFile()}`);
        return canConnect(this.port);
      },
      30_000,
      'pgbouncer',
    );
  }

  logFile(): string {
    try {
      return readFileSync(path.join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** As `systemctl stop pgbouncer` with Debian's unit: SIGINT (safe shutdown), until it exits. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /**
   * A command on PgBouncer's admin console (`SHOW CLIENTS`, …), over its Unix socket as the
   * user it runs as, which the console admits without a password (no admin_users needed).
   */
  admin(command: string): Record<string, string>[] {
    const out = execFileSync(
      `${PG_BIN}/psql`,
      ['-h', this.dir, '-p', String(this.port), '-U', 'pgbouncer', '-X', '-A', '-F', '\t', '-c', command, 'pgbouncer'],
      { encoding: 'utf8', ...asPostgres() },
    );
    const [header, ...rows] = out.trim().split('\n');
    const columns = header!.split('\t');
    return rows
      .filter((r) => !/^\(\d+ rows?\)$/.test(r))
      .map((r) => Object.fromEntries(r.split('\t').map((v, i) => [columns[i]!, v])));
  }
}

// ——— Varnish ———

export interface VarnishPorts {
  http: number;
  tls: number;
  purge: number;
  admin: number;
}

export class Varnish {
  process?: ChildProcess;
  readonly logs: string[] = [];
  /** The varnishd arguments as started (the drop-in's, overrides applied). */
  args: string[] = [];
  constructor(
    readonly dir: string,
    readonly ports: VarnishPorts,
    readonly appPorts: [number, number],
  ) {}

  /** deploy/varnish/publishing.vcl as shipped, with only the instances' ports replaced. */
  writeConfig(): string {
    let vcl = readShipped(SHIPPED.vcl);
    const shipped = vclBackendPorts(vcl);
    (['app1', 'app2'] as const).forEach((backend, i) => {
      const from = `backend ${backend} {`;
      const at = vcl.indexOf(from);
      const port = `.port = "${shipped[backend]}";`;
      const portAt = vcl.indexOf(port, at);
      if (at === -1 || portAt === -1) throw new Error(`${SHIPPED.vcl} changed shape (backend ${backend})`);
      const test = override(SHIPPED.vcl, `backend ${backend} .port`, shipped[backend]!, String(this.appPorts[i]));
      vcl = `${vcl.slice(0, portAt)}.port = "${test}";${vcl.slice(portAt + port.length)}`;
    });
    const file = path.join(this.dir, 'default.vcl');
    writeFileSync(file, vcl);
    return file;
  }

  /** The drop-in's ExecStart with the listed overrides applied. */
  command(vclFile: string, secretFile: string): string[] {
    const [binary, ...shipped] = dropInCommand();
    const args: string[] = [];
    const sockets = new Set<string>();
    for (let i = 0; i < shipped.length; i++) {
      const flag = shipped[i]!;
      if (flag === '-F') {
        args.push(flag);
        continue;
      }
      const value = shipped[++i];
      if (value === undefined) throw new Error(`${SHIPPED.varnishDropIn}: ${flag} without a value`);
      switch (flag) {
        case '-a': {
          const m = /^(\w+)=([^,]*)(,.*)?$/.exec(value);
          if (!m) throw new Error(`${SHIPPED.varnishDropIn}: unnamed listen socket ${value}`);
          const [, name, , rest = ''] = m;
          const port = this.ports[name as 'http' | 'tls' | 'purge'];
          if (port === undefined || !['http', 'tls', 'purge'].includes(name!))
            throw new Error(`${SHIPPED.varnishDropIn}: unknown socket ${name}`);
          sockets.add(name!);
          const setting = `-a ${name}=` as Setting;
          args.push('-a', override(SHIPPED.varnishDropIn, setting, value, `${name}=127.0.0.1:${port}${rest}`));
          break;
        }
        case '-T':
          args.push('-T', override(SHIPPED.varnishDropIn, '-T', value, `127.0.0.1:${this.ports.admin}`));
          break;
        case '-f':
          args.push('-f', override(SHIPPED.varnishDropIn, '-f', value, vclFile));
          break;
        case '-S':
          args.push('-S', override(SHIPPED.varnishDropIn, '-S', value, secretFile));
          break;
        case '-j':
          args.push('-j', override(SHIPPED.varnishDropIn, '-j', value, asRoot ? value : 'none'));
          break;
        case '-s':
        case '-p':
          args.push(flag, value);
          break;
        default:
          throw new Error(`${SHIPPED.varnishDropIn}: ${flag} is new to the test (add it to OVERRIDES or keep it)`);
      }
    }
    if (sockets.size !== 3) throw new Error(`${SHIPPED.varnishDropIn}: sockets http, tls and purge expected`);
    args.push('-n', override(SHIPPED.varnishDropIn, '-n (added)', '(none: /var/lib/varnish/<host>)', this.workDir));
    return [binary!, ...args];
  }

  async start(): Promise<void> {
    const vcl = this.writeConfig();
    const secret = path.join(this.dir, 'secret');
    writeFileSync(secret, randomBytes(32).toString('hex'), { mode: 0o600 });
    const [binary, ...args] = this.command(vcl, secret);
    this.args = args;
    const child = spawn(binary!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    child.stdout!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    child.stderr!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`varnishd exited: ${this.logs.join('')}`);
        return (await canConnect(this.ports.http)) && (await canConnect(this.ports.tls));
      },
      60_000,
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

// ——— hitch ———

export class Hitch {
  process?: ChildProcess;
  readonly logs: string[] = [];
  /** The self-signed certificate clients trust (PEM). */
  certificate = '';
  constructor(
    readonly dir: string,
    readonly port: number,
    readonly varnishTlsPort: number,
  ) {}

  writeConfig(): string {
    mkdirSync(this.dir, { recursive: true });
    const key = path.join(this.dir, 'key.pem');
    const cert = path.join(this.dir, 'cert.pem');
    execFileSync(
      OPENSSL,
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${PUBLIC_HOST}`,
        '-addext',
        `subjectAltName=DNS:${PUBLIC_HOST}`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    this.certificate = readFileSync(cert, 'utf8');
    // As the shipped comment says: the certificate (and chain), then the key, in one file.
    const pem = path.join(this.dir, `${PUBLIC_HOST}.pem`);
    writeFileSync(pem, this.certificate + readFileSync(key, 'utf8'), { mode: 0o600 });
    let text = readShipped(SHIPPED.hitch);
    const settings: [Setting, string][] = [
      ['frontend', `"[127.0.0.1]:${this.port}"`],
      ['backend', `"[127.0.0.1]:${this.varnishTlsPort}"`],
      ['pem-file', `"${pem}"`],
    ];
    for (const [key, value] of settings) {
      const set = setIni(text, key, value);
      text = set.text;
      override(SHIPPED.hitch, key, set.shipped, value);
    }
    if (!asRoot) {
      const dropped = text.replace(/^(user|group) = .*\n/gm, '');
      override(SHIPPED.hitch, 'user, group', '"_hitch", "_hitch"', '(none)');
      text = dropped;
    }
    const file = path.join(this.dir, 'hitch.conf');
    writeFileSync(file, text);
    return file;
  }

  /** As Debian's hitch.service: `hitch --user _hitch --group _hitch --config <file>` (root drops to _hitch). */
  async start(): Promise<void> {
    const config = this.writeConfig();
    const args = asRoot ? ['--user', '_hitch', '--group', '_hitch', '--config', config] : ['--config', config];
    const child = spawn(HITCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    child.stdout!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    child.stderr!.on('data', (c: Buffer) => this.logs.push(c.toString()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`hitch exited: ${this.logs.join('')}`);
        return canConnect(this.port);
      },
      30_000,
      'hitch',
    );
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

// ——— helpers ———

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

/**
 * A process's established TCP connections, local and remote port (from /proc: its socket
 * inodes, then the kernel's TCP tables), to tell what an instance or PgBouncer is connected to.
 */
export function connectionsOf(pid: number): { local: number; remote: number }[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const connections: { local: number; remote: number }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      // sl local_address rem_address st … inode (column 9); state 01 = ESTABLISHED
      if (cols.length > 9 && cols[3] === '01' && inodes.has(cols[9]!))
        connections.push({
          local: parseInt(cols[1]!.split(':')[1]!, 16),
          remote: parseInt(cols[2]!.split(':')[1]!, 16),
        });
    }
  }
  return connections;
}

// ——— the instances ———

/** systemd's default PATH for services. */
const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Starts instance `port` as the unit does: its ExecStart in its WorkingDirectory, with the
 * EnvironmentFile's and the Environment= lines' variables and nothing of the test's own
 * environment. Resolves once it logs "serving on" (after its console routes are warm).
 */
async function startUnitInstance(port: number, sharedEnv: Record<string, string>): Promise<RunningService> {
  const unit = unitCommand(String(port));
  override(SHIPPED.unit, '%i', '3001, 3002 (the Procfile’s, the VCL’s)', String(port));
  const [binary, ...args] = unit.command;
  const node = override(
    SHIPPED.unit,
    'ExecStart= /usr/bin/node',
    binary!,
    existsSync(binary!) && binary === process.execPath ? binary! : process.execPath,
  );
  const cwd = override(SHIPPED.unit, 'WorkingDirectory=', unit.workingDirectory, ROOT);
  override(SHIPPED.unit, 'User=, Group=', 'publishing', os.userInfo().username);
  const env: Record<string, string> = { PATH: SYSTEMD_PATH, ...sharedEnv, ...unit.environment };
  if (process.env.NEXT_TELEMETRY_DISABLED)
    env.NEXT_TELEMETRY_DISABLED = override(
      SHIPPED.unit,
      'environment: NEXT_TELEMETRY_DISABLED',
      '(unset)',
      process.env.NEXT_TELEMETRY_DISABLED,
    );
  const child = spawn(node, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start in time:\n${logs.join('')}`)), 180_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      logs.push(text);
      if (logs.length > 2000) logs.splice(0, 1000);
      const match = /serving on (http:\/\/[0-9.]+:\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (c: Buffer) => logs.push(c.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code} before serving:\n${logs.join('')}`));
    });
  });
  return {
    baseUrl,
    dataDir: env.DATA_DIR!,
    env,
    process: child,
    logs,
    stop: (signal = 'SIGTERM') =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (c) => resolve(c));
        child.kill(signal);
      }),
  };
}

/** The whole layout; `instances[i]` is replaced when an instance is restarted. */
export class Layout {
  readonly dir: string;
  postgres!: Postgres;
  pgbouncer!: PgBouncer;
  varnish!: Varnish;
  hitch!: Hitch;
  instances: (RunningService | null)[] = [null, null];
  appPorts!: [number, number];
  /** What every instance shares: deploy/publishing.env.example with the listed overrides. */
  env!: Record<string, string>;

  /**
   * `direct`: the instances reach PostgreSQL itself instead of PgBouncer (bench/capacity.ts
   * measures what the pooler costs); the tests always go through PgBouncer, as shipped.
   */
  constructor(readonly opts: { direct?: boolean } = {}) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'publishing-deploy-'));
    // PostgreSQL, PgBouncer, Varnish's and hitch's users must traverse to their files.
    chmodSync(this.dir, 0o755);
  }

  async start(): Promise<void> {
    this.postgres = new Postgres(this.dir, await freePort());
    const scram = await this.postgres.init();
    this.pgbouncer = new PgBouncer(path.join(this.dir, 'pgbouncer'), await freePort(), this.postgres.port);
    this.pgbouncer.writeConfig(scram);
    await this.pgbouncer.start();

    this.appPorts = [await freePort(), await freePort()];
    const ports: VarnishPorts = {
      http: await freePort(),
      tls: await freePort(),
      purge: await freePort(),
      admin: await freePort(),
    };
    this.varnish = new Varnish(path.join(this.dir, 'varnish'), ports, this.appPorts);
    mkdirSync(this.varnish.dir);
    await this.varnish.start();
    this.hitch = new Hitch(path.join(this.dir, 'hitch'), await freePort(), ports.tls);
    await this.hitch.start();

    mkdirSync(path.join(this.dir, 'shared'));
    this.env = this.instanceEnv();
    // Together, as `systemctl start publishing@3001 publishing@3002` does: the migrations take
    // turns under their advisory lock.
    await Promise.all([this.startInstance(0), this.startInstance(1)]);
    await this.untilInRotation();
  }

  /** deploy/publishing.env.example, parsed, its CHANGE-ME values and machine paths replaced. */
  private instanceEnv(): Record<string, string> {
    const shipped = parseEnvironmentFile(readShipped(SHIPPED.env));
    const env = { ...shipped };
    const url = new URL(shipped.DATABASE_URL!);
    const test = new URL(url);
    test.password = this.postgres.rolePassword;
    test.port = String(this.opts.direct ? this.postgres.port : this.pgbouncer.port);
    env.DATABASE_URL = override(SHIPPED.env, 'DATABASE_URL', url.href, test.href);
    env.SESSION_SECRET = override(
      SHIPPED.env,
      'SESSION_SECRET',
      shipped.SESSION_SECRET!,
      randomBytes(48).toString('base64'),
    );
    env.METRICS_TOKEN = override(
      SHIPPED.env,
      'METRICS_TOKEN',
      shipped.METRICS_TOKEN!,
      randomBytes(24).toString('base64url'),
    );
    env.DATA_DIR = override(SHIPPED.env, 'DATA_DIR', shipped.DATA_DIR!, path.join(this.dir, 'shared'));
    const purge = new URL(shipped.CACHE_PURGE_URLS!);
    purge.port = String(this.varnish.ports.purge);
    env.CACHE_PURGE_URLS = override(SHIPPED.env, 'CACHE_PURGE_URLS', shipped.CACHE_PURGE_URLS!, purge.origin);
    return env;
  }

  /** Until Varnish's health probes count every running instance in the rotation again. */
  async untilInRotation(): Promise<void> {
    await waitFor(
      async () => this.instances.every((instance, i) => !instance || this.varnish.healthy(`app${i + 1}`)),
      60_000,
      'the instances in rotation',
    );
  }

  async startInstance(i: 0 | 1): Promise<RunningService> {
    const service = await startUnitInstance(this.appPorts[i], this.env);
    this.instances[i] = service;
    return service;
  }

  async stopInstance(i: 0 | 1, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const service = this.instances[i];
    this.instances[i] = null;
    return service ? service.stop(signal) : null;
  }

  /** The CLI as an operator runs it on this layout: the instances' environment file. */
  cliEnv(): Record<string, string | undefined> {
    return { ...process.env, ...this.env };
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.stopInstance(0), this.stopInstance(1)]);
    await this.hitch?.stop().catch(() => {});
    await this.varnish?.stop().catch(() => {});
    await this.pgbouncer?.stop('SIGTERM').catch(() => {});
    try {
      this.postgres?.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ——— requests ———

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Which way a request reaches Varnish: its `http` socket (default), its `purge` socket, its
 * `tls` socket through hitch (TLS; hitch adds the PROXY header naming 127.0.0.1), or its `tls`
 * socket directly with a PROXY protocol header naming `from` (as hitch would for that client).
 */
export type Via = { socket: 'http' | 'purge' | 'hitch' } | { socket: 'tls'; from: string; proxyVersion?: 1 | 2 };

/** A PROXY protocol header (v1 text or v2 binary) for a TCP/IPv4 connection from `from`. */
function proxyHeader(from: string, to: number, version: 1 | 2): Buffer {
  const sourcePort = 40_000 + Math.floor(Math.random() * 20_000);
  if (version === 1) return Buffer.from(`PROXY TCP4 ${from} 127.0.0.1 ${sourcePort} ${to}\r\n`);
  const signature = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
  const header = Buffer.alloc(16 + 12);
  signature.copy(header, 0);
  header[12] = 0x21; // version 2, PROXY
  header[13] = 0x11; // AF_INET, STREAM
  header.writeUInt16BE(12, 14);
  from.split('.').forEach((octet, i) => (header[16 + i] = Number(octet)));
  [127, 0, 0, 1].forEach((octet, i) => (header[20 + i] = octet));
  header.writeUInt16BE(sourcePort, 24);
  header.writeUInt16BE(to, 26);
  return header;
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
  opts: { token?: string; json?: unknown; body?: Buffer; headers?: Record<string, string>; via?: Via } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { host: host === 'public' ? PUBLIC_HOST : CONSOLE_HOST, ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = Buffer.from(JSON.stringify(opts.json));
  }
  if (body) headers['content-length'] = String(body.length);
  const via = opts.via ?? { socket: 'http' };
  const common = { host: '127.0.0.1', method, path: pathname, headers, agent: false as const, timeout: 30_000 };
  return new Promise((resolve) => {
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
    };
    let req: http.ClientRequest;
    if (via.socket === 'hitch') {
      req = https.request(
        { ...common, port: layout.hitch.port, servername: PUBLIC_HOST, ca: layout.hitch.certificate },
        onResponse,
      );
    } else if (via.socket === 'tls') {
      const port = layout.varnish.ports.tls;
      // No `agent` here: with `agent: false` node ignores createConnection.
      const { agent: _none, ...direct } = common;
      req = http.request(
        {
          ...direct,
          headers: { ...headers, connection: 'close' },
          port,
          createConnection: () => {
            const socket = net.connect(port, '127.0.0.1');
            socket.write(proxyHeader(via.from, port, via.proxyVersion ?? 2));
            return socket;
          },
        },
        onResponse,
      );
    } else {
      req = http.request({ ...common, port: layout.varnish.ports[via.socket] }, onResponse);
    }
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, headers: {}, text: String(err) }));
    req.end(body);
  });
}
