import { env } from './env';

/**
 * One JSON object per line on stdout. LOG_LEVEL=silent mutes per-request `info` lines
 * (benchmarks); `notice` (start, stop) and `error` lines are always written.
 *
 * Lines are collected and written once per turn of the event loop: one write system call for
 * all the requests that finished together, instead of one each (stdout to a file or a pipe is
 * a synchronous write in Node). `flushLog()` writes what is pending at once (before exit).
 */
let pending: string[] = [];
let scheduled = false;

export function logLine(fields: Record<string, unknown> & { level: 'info' | 'notice' | 'error' }): void {
  if (env.LOG_LEVEL === 'silent' && fields.level === 'info') return;
  pending.push(JSON.stringify({ time: new Date().toISOString(), ...fields }) + '\n');
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushLog);
  }
}

export function flushLog(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const text = pending.join('');
  pending = [];
  process.stdout.write(text);
}
