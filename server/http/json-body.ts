/**
 * The JSON body of a REST write (and of the operator route), read with its cap, its
 * Content-Type check, an idle timeout and a deadline for the whole body.
 *
 * A client that announces a body and then sends it slowly would otherwise hold its connection,
 * its request and the token check already spent until the server's 120 s request timeout:
 * - the idle timeout (JSON_BODY_IDLE_TIMEOUT_MS, like UPLOAD_IDLE_TIMEOUT_MS for uploads) ends a
 *   body that pauses;
 * - the deadline (JSON_BODY_TIMEOUT_MS) ends one that never pauses long but never ends either,
 *   a byte a second: the idle timer starts again with every chunk, the deadline does not.
 * Past either, it is answered 400 and the connection closed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { env } from '../foundation/env';
import { invalid } from '../foundation/errors';

export interface BodyTimeouts {
  /** Longest pause between two chunks. */
  idleMs: number;
  /** Longest time for the whole body, from the moment reading starts. */
  totalMs: number;
}

const DEFAULT_TIMEOUTS = (): BodyTimeouts => ({
  idleMs: env.JSON_BODY_IDLE_TIMEOUT_MS,
  totalMs: env.JSON_BODY_TIMEOUT_MS,
});

export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  timeouts: BodyTimeouts = DEFAULT_TIMEOUTS(),
): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  // One leading UTF-8 byte order mark is dropped: some encoders write one (RFC 8259 §8.1 lets a
  // parser ignore it), and JSON.parse would refuse the whole body for it.
  const text = (await readWithin(req, res, maxBytes, timeouts)).toString('utf8').replace(/^\uFEFF/, '');
  // Bodyless POSTs are normal here: publish and unpublish take no body.
  if (text.trim() === '') return {};
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) throw invalid('Content-Type: must be application/json');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('body: invalid JSON');
  }
  // Every body of this API is an object; an array or a string is refused on every route alike.
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body: must be a JSON object');
  return body;
}

function readWithin(req: IncomingMessage, res: ServerResponse, maxBytes: number, timeouts: BodyTimeouts) {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let idle: NodeJS.Timeout | undefined;
    const finish = (err: Error | null) => {
      clearTimeout(idle);
      clearTimeout(deadline);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, total));
    };
    const refuse = (why: string) => {
      // The rest of the body is never read: the answer goes out now and the connection closes.
      req.pause();
      res.setHeader('connection', 'close');
      finish(invalid(`body: ${why}; send it again`));
    };
    const stall = () => refuse(`the request body stalled (no data for ${Math.ceil(timeouts.idleMs / 1000)} s)`);
    const late = () => refuse(`the request body was not complete within ${Math.ceil(timeouts.totalMs / 1000)} s`);
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) return finish(tooLarge(maxBytes));
      chunks.push(chunk);
      clearTimeout(idle);
      idle = setTimeout(stall, timeouts.idleMs);
    };
    const onEnd = () => finish(null);
    const onError = (err: Error) => finish(err);
    idle = setTimeout(stall, timeouts.idleMs);
    const deadline = setTimeout(late, timeouts.totalMs);
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function tooLarge(maxBytes: number) {
  return invalid(`body: larger than ${maxBytes} bytes`);
}
