import { env } from './env';

/**
 * One JSON object per line on stdout. LOG_LEVEL=silent mutes per-request `info` lines
 * (benchmarks); `notice` (start, stop) and `error` lines are always written.
 */
export function logLine(fields: Record<string, unknown> & { level: 'info' | 'notice' | 'error' }): void {
  if (env.LOG_LEVEL === 'silent' && fields.level === 'info') return;
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), ...fields }) + '\n');
}
