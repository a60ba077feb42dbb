/**
 * A minimum transfer rate for a request body, for uploads (server/http/multipart-file.ts).
 *
 * An upload's body may be large (50 MiB) and the sender's link slow, so a deadline for the whole
 * body would cut legitimate uploads; an idle timeout alone (UPLOAD_IDLE_TIMEOUT_MS) is defeated
 * by a sender that trickles a few bytes a second and never pauses. What ends a trickle without
 * cutting a slow but real upload is a floor on the rate: once a first whole window has passed
 * (the grace period), the bytes received in the last `windowMs` (a sliding window, moved on ten
 * times a window) must average at least `minBytesPerSecond`. Below it, the watch says so once.
 *
 * Such a body is also exempt from the server's whole-request deadline (REQUEST_TIMEOUT_MS, Node's
 * `requestTimeout`): while a Node request's body is read under a floor, its socket is listed
 * here, and the launcher's `clientError` handler lets Node's request timeout pass for it
 * (`isUnderRateFloor`). The floor is what bounds it instead. The console's upload reaches its
 * handler through Next, which buffers the body first: its floor is counted on the connection
 * (`watchConnectionRate`, started by the request listener).
 */
import { env } from '../foundation/env';

export interface RateFloor {
  /** Bytes per second the body must average over `windowMs`; 0: no floor. */
  minBytesPerSecond: number;
  /** The sliding window, and the grace period before the first judgement (milliseconds). */
  windowMs: number;
}

/** UPLOAD_MIN_BYTES_PER_SECOND over UPLOAD_RATE_WINDOW_MS. */
export const uploadRateFloor = (): RateFloor => ({
  minBytesPerSecond: env.UPLOAD_MIN_BYTES_PER_SECOND,
  windowMs: env.UPLOAD_RATE_WINDOW_MS,
});

interface RateWatch {
  /** Bytes that arrived. */
  count(bytes: number): void;
  /** No more judgements (the body ended, or was given up); the socket's exemption ends. */
  stop(): void;
}

/** What a too-slow body had sent in its last window, and what it needed to. */
export interface TooSlow {
  received: number;
  needed: number;
  windowSeconds: number;
}

const STEPS_PER_WINDOW = 10;

/** Sockets whose request body is being read under a rate floor (see the module's comment). */
const underFloor = new WeakSet<object>();

/** Whether Node's request timeout should let this socket's request be: its body has a rate floor instead. */
export function isUnderRateFloor(socket: object): boolean {
  return underFloor.has(socket);
}

/**
 * Starts watching a body: `onTooSlow` is called (once, after which the watch is stopped) when
 * the last window's bytes fall under the floor. `socket`, when given, is the Node request's
 * connection: exempt from the server's request timeout until `stop`.
 */
export function watchRate(
  floor: RateFloor,
  onTooSlow: (slow: TooSlow) => void,
  socket?: object,
  /** Where the count comes from when not from `count` calls: read at each step (a connection's bytes). */
  bytesSoFar?: () => number,
): RateWatch {
  if (floor.minBytesPerSecond <= 0) return { count: () => undefined, stop: () => undefined };
  const stepMs = Math.max(10, Math.round(floor.windowMs / STEPS_PER_WINDOW));
  const needed = Math.ceil((floor.minBytesPerSecond * stepMs * STEPS_PER_WINDOW) / 1000);
  let total = 0;
  // The running total at each step, the oldest first: a whole window is STEPS_PER_WINDOW + 1 marks.
  const marks: number[] = [0];
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    if (socket) underFloor.delete(socket);
  };
  const timer = setInterval(() => {
    if (bytesSoFar) total = bytesSoFar();
    marks.push(total);
    if (marks.length > STEPS_PER_WINDOW + 1) marks.shift();
    if (marks.length < STEPS_PER_WINDOW + 1) return; // the grace period: the first whole window
    const received = total - marks[0]!;
    if (received >= needed) return;
    stop();
    onTooSlow({ received, needed, windowSeconds: (stepMs * STEPS_PER_WINDOW) / 1000 });
  }, stepMs);
  if (socket) underFloor.add(socket);
  return {
    count: (bytes) => {
      total += bytes;
    },
    stop,
  };
}

/** What a body under its floor is told (multipart-file.ts puts the field's name first). */
export function tooSlowMessage(slow: TooSlow): string {
  return `the upload is too slow (${slow.received} bytes in the last ${slow.windowSeconds} s, at least ${slow.needed} needed); send it again`;
}

/** The console's upload route (a route handler behind Next). */
export const CONSOLE_UPLOAD_PATH = '/console/media/upload';

/**
 * The upload floor for a body that another reader takes whole before anyone sees it: Next
 * buffers the console upload's body for proxy.ts before the route handler reads it, so the
 * handler's own floor (multipart-file.ts) sees nothing until the last byte is in, and a trickle
 * was bounded only by REQUEST_TIMEOUT_MS. Counted from the connection's bytes as they arrive
 * instead, until the body has ended or the answer is done; the connection is exempt from the
 * request timeout meanwhile (a slow but steady upload goes on). `onTooSlow` answers.
 */
export function watchConnectionRate(
  request: { socket: { bytesRead: number }; once(event: 'end', listener: () => void): unknown },
  response: { once(event: 'close', listener: () => void): unknown },
  onTooSlow: (slow: TooSlow) => void,
): void {
  const start = request.socket.bytesRead;
  const watch = watchRate(uploadRateFloor(), onTooSlow, request.socket, () => request.socket.bytesRead - start);
  request.once('end', watch.stop);
  response.once('close', watch.stop);
}
