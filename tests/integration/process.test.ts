import { spawn } from 'node:child_process';
import fs, { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseUrl } from '../support/api';
import { removeDataDir, ROOT, tempDataDir } from '../support/service';

/**
 * The process tree as an operator (or a container runtime) sees it: `npm start` under SIGTERM
 * leaves nothing running, and a start that cannot listen exits instead of hanging on.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDataDir(dir);
});

/** pid → parent pid of every process, from /proc. */
function processTable(): Map<number, { ppid: number; state: string; cmd: string }> {
  const table = new Map<number, { ppid: number; state: string; cmd: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      table.set(Number(entry), { state: afterName[0]!, ppid: Number(afterName[1]), cmd });
    } catch {
      // The process ended while the table was read.
    }
  }
  return table;
}

function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const [child, info] of table) {
      if (info.ppid !== pid) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Alive means present and not a zombie waiting for a parent that may never reap it. */
function alive(pids: number[]): number[] {
  const table = processTable();
  return pids.filter((pid) => table.has(pid) && table.get(pid)!.state !== 'Z');
}

function waitForLine(child: ReturnType<typeof spawn>, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in time:\n${seen}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${seen}`));
    });
  });
}

/** Runs the built launcher on loopback with these variables until it exits; its code and output. */
async function launchUntilExit(vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['dist/launcher.mjs'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', ...vars },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  // 'close': after the exit and the end of its piped output, which 'exit' can come before.
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, output };
}

describe('process lifecycle', () => {
  it('SIGTERM to the npm start process stops the server and its embedded PostgreSQL within 15 s', async () => {
    const dataDir = tempDataDir('publishing-npm-start-');
    dirs.push(dataDir);
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await waitForLine(npm, /serving on http:\/\/127\.0\.0\.1:\d+/, 120_000);
    const url = line.replace('serving on ', '');
    expect((await fetch(`${url}/api/health`)).status).toBe(200);

    const started = descendants(npm.pid!);
    const commands = [...processTable()].filter(([pid]) => started.includes(pid)).map(([, info]) => info.cmd);
    expect(commands.some((cmd) => cmd.includes('dist/launcher.mjs'))).toBe(true);
    expect(commands.some((cmd) => cmd.includes('postgres') && cmd.includes(dataDir))).toBe(true);

    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const stopAt = Date.now();
    npm.kill('SIGTERM');
    await exited;
    let left = alive(started);
    while (left.length > 0 && Date.now() - stopAt < 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      left = alive(started);
    }
    expect(left).toEqual([]);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });

  it.each([
    [
      'a session-secret file shorter than 32 bytes',
      { file: 'short\n' },
      /session-secret: the session secret is 5 bytes/,
    ],
    // The launcher's "failed to start" line is JSON, so the entry's quotes arrive escaped.
    [
      'ALLOWED_PRIVATE_ADDRESSES with a non-canonical entry',
      { ALLOWED_PRIVATE_ADDRESSES: '10.1/16' },
      /Invalid environment: ALLOWED_PRIVATE_ADDRESSES: \\"10\.1\/16\\" is not a canonical IP address/,
    ],
  ])('%s fails the start with exit code 1, naming the problem, before any database', async (_what, setup, message) => {
    const dataDir = tempDataDir('publishing-bad-start-');
    dirs.push(dataDir);
    const { file, ...vars } = setup as { file?: string } & Record<string, string>;
    if (file !== undefined) fs.writeFileSync(path.join(dataDir, 'session-secret'), file, { mode: 0o600 });
    const { code, output } = await launchUntilExit({ DATA_DIR: dataDir, PORT: '0', SESSION_SECRET: '', ...vars });
    expect(code).toBe(1);
    expect(output).toMatch(message);
    expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
  });

  it('a port already in use fails the start with exit code 1 and stops the cluster it started', async () => {
    const dataDir = tempDataDir('publishing-port-taken-');
    dirs.push(dataDir);
    const taken = new URL(baseUrl()).port;
    const { code, output } = await launchUntilExit({ DATA_DIR: dataDir, PORT: taken, DATABASE_URL: '' });
    expect(code).toBe(1);
    expect(output).toContain('EADDRINUSE');
    const clusters = [...processTable().values()].filter(
      (info) => info.cmd.includes('postgres') && info.cmd.includes(dataDir) && info.state !== 'Z',
    );
    expect(clusters).toEqual([]);
  });
});
