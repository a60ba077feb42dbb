import { env } from './env';
import { jsonString } from './json-string';
import { activeTraceId, TRACING } from './tracing';

/**
 * One JSON object per line on stdout. LOG_LEVEL=silent mutes per-request `info` lines
 * (benchmarks); `notice` (start, stop) and `error` lines are always written.
 *
 * Writing costs a system call each time (stdout to a file or a pipe is a synchronous write in
 * Node), and under load that call, made for every few requests, cost more than assembling the
 * lines. So `info` lines are gathered and written together at most FLUSH_DELAY_MS later, or as
 * soon as FLUSH_SIZE characters are waiting. A `notice` or `error` line is written at once,
 * after whatever is waiting, so lines keep their order and what matters is never late. Nothing
 * is lost at exit: `flushLog()` runs on the process's `exit` event (process.exit, the end of the
 * event loop, an uncaught exception), and the launcher calls it before exiting on SIGTERM.
 */
const FLUSH_DELAY_MS = 100;
const FLUSH_SIZE = 64 * 1024;

let pending = '';
let timer: NodeJS.Timeout | undefined;

export function logLine(fields: Record<string, unknown> & { level: 'info' | 'notice' | 'error' }): void {
  if (env.LOG_LEVEL === 'silent' && fields.level === 'info') return;
  // Traces on: a line written during a request names the request's trace (`trace_id`).
  const traceId = TRACING && fields.trace_id === undefined ? activeTraceId() : undefined;
  const line = traceId === undefined ? fields : { ...fields, trace_id: traceId };
  append(JSON.stringify({ time: isoTime(Date.now()), ...line }) + '\n', fields.level !== 'info');
}

/** The fields of the line every HTTP request leaves (server/http/request-listener.ts). */
export interface RequestLine {
  method: string;
  /** The path with its ids masked. */
  route: string;
  status: number;
  /** Written as `duration_ms`, in milliseconds with three decimals. */
  duration_us: number;
  request_id: string;
}

/**
 * The per-request line: the text `logLine({ level: 'info', msg: 'request', method, route,
 * status, duration_ms: duration_us / 1000, request_id })` writes, assembled directly (no
 * intermediate object, no generic JSON.stringify of it). With traces on, `traceId` (the
 * request span's, 32 hex digits) follows as `trace_id`.
 */
export function logRequest(line: RequestLine, traceId?: string): void {
  if (env.LOG_LEVEL === 'silent') return;
  append(
    `{"time":"${isoTime(Date.now())}","level":"info","msg":"request","method":${jsonString(line.method)},"route":${jsonString(line.route)},"status":${jsonNumber(line.status)},"duration_ms":${millis(line.duration_us)},"request_id":${jsonString(line.request_id)}${traceId === undefined ? '' : `,"trace_id":"${traceId}"`}}\n`,
    false,
  );
}

const jsonNumber = (n: number) => (Number.isFinite(n) ? `${n}` : 'null');

/**
 * `us / 1000` as JSON writes it (`12`, `12.5`, `12.345`), from the integer's digits: printing a
 * fraction goes through the shortest-representation algorithm for doubles, which cost more than
 * the rest of the line. Anything but a whole number of microseconds below 1e15 takes that path.
 */
function millis(us: number): string {
  // Up to 15 digits a decimal is exactly what the shortest representation prints; past that
  // (thirty years), doubles round and the generic path decides.
  if (!Number.isInteger(us) || us < 0 || us >= 1e15) return jsonNumber(us / 1000);
  const whole = Math.floor(us / 1000);
  const frac = us - whole * 1000;
  if (frac === 0) return `${whole}`;
  if (frac % 100 === 0) return `${whole}.${frac / 100}`;
  if (frac % 10 === 0) return `${whole}.${frac < 100 ? '0' : ''}${frac / 10}`;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

/**
 * `new Date(ms).toISOString()`, computed once per second: the date and time up to the second are
 * kept, the milliseconds appended. (Next replaces the global `Date` with a wrapper that checks
 * its rendering context on each construction, which made the timestamp a visible cost.)
 */
let second = NaN;
let secondText = '';
export function isoTime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    second = s;
    secondText = new Date(s * 1000).toISOString().slice(0, -4);
  }
  const milli = ms - s * 1000;
  return `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

function append(text: string, now: boolean): void {
  pending += text;
  if (now || pending.length >= FLUSH_SIZE) flushLog();
  else if (timer === undefined) {
    timer = setTimeout(flushLog, FLUSH_DELAY_MS);
    // A pending line never keeps the process alive: the exit handler writes it.
    timer.unref();
  }
}

/** Writes what is waiting, now (before exit; called on the `exit` event too). */
export function flushLog(): void {
  if (timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
  }
  if (pending === '') return;
  const text = pending;
  pending = '';
  process.stdout.write(text);
}

process.on('exit', flushLog);
