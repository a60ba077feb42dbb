import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Starts the real service (`dist/launcher.mjs`, what `npm start` runs) as a child process
 * and waits for its "serving" log line. Needs a prior `npm run build`.
 */
export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface RunningService {
  baseUrl: string;
  dataDir: string;
  env: Record<string, string | undefined>;
  process: ChildProcess;
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every test instance serves /api/metrics to this bearer (a test may start one without it). */
const TEST_METRICS_TOKEN = 'metrics-token-of-the-test-instances';

/** The metrics text of an instance, read as an operator with METRICS_TOKEN does. */
export async function metricsOf(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
}

/**
 * The setting for an instance whose tests never reach the console (CONSOLE=off, README's
 * environment table): no Next thread to start and warm up, about 1.9 s of CPU less a start. The
 * instances that serve the console (the shared one, and those of the console, start-up,
 * shutdown, failure and deployment tests) keep it; a test that reached the console here would get
 * 404, not a silently different answer.
 */
export const API_ONLY = { CONSOLE: 'off' } as const;

export function tempDataDir(prefix = 'publishing-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Removes a temporary DATA_DIR (its cluster must be stopped first); tests leave nothing behind. */
export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function startService(
  extraEnv: Record<string, string | undefined> = {},
  timeoutMs = 120_000,
): Promise<RunningService> {
  const ownsDataDir = !extraEnv.DATA_DIR;
  const dataDir = (extraEnv.DATA_DIR as string | undefined) ?? tempDataDir();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8',
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    ...extraEnv,
    NODE_ENV: 'production',
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/launcher.mjs')], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${logs.join('')}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      logs.push(text);
      if (logs.length > 2000) logs.splice(0, 1000);
      const match = /serving on (http:\/\/[0-9.]+:\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => logs.push(c.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before serving:\n${logs.join('')}`));
    });
  });
  return {
    baseUrl,
    dataDir,
    env,
    process: child,
    logs,
    stop: async (signal = 'SIGTERM') => {
      const code = await new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (c) => resolve(c));
        child.kill(signal);
      });
      // A data dir made here holds this instance's own cluster, stopped by now.
      if (ownsDataDir) removeDataDir(dataDir);
      return code;
    },
  };
}

/** Runs the operator CLI as operators do; resolves with the parsed JSON line. */
export function cli(
  env: Record<string, string | undefined>,
  args: string[],
): Promise<{ code: number; json: unknown; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli.mjs'), ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    // 'close', not 'exit': a process can exit before its piped output has all been read, and
    // then its JSON line was lost (seen with the e2e setup's ten CLI processes at once).
    child.once('close', (code) => {
      let json: unknown = undefined;
      try {
        json = stdout.trim() ? JSON.parse(stdout.trim()) : undefined;
      } catch {
        /* left undefined: the test asserts on stdout */
      }
      resolve({ code: code ?? -1, json, stdout, stderr });
    });
  });
}
