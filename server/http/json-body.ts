/**
 * The JSON body of a REST write, read with its cap, its Content-Type check and an idle timeout.
 *
 * The idle timeout (JSON_BODY_IDLE_TIMEOUT_MS, like UPLOAD_IDLE_TIMEOUT_MS for uploads): a
 * client that announces a body and then sends it a byte at a time, or not at all, would
 * otherwise hold its connection, its request and the token check already spent until the
 * server's 120 s request timeout. Past the pause it is answered 400 and the connection closed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { env } from '../env';
import { invalid } from '../errors';

export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  idleTimeoutMs = env.JSON_BODY_IDLE_TIMEOUT_MS,
): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = (await readWithin(req, res, maxBytes, idleTimeoutMs)).toString('utf8');
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

function readWithin(req: IncomingMessage, res: ServerResponse, maxBytes: number, idleTimeoutMs: number) {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let idle: NodeJS.Timeout | undefined;
    const finish = (err: Error | null) => {
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, total));
    };
    const stall = () => {
      // The rest of the body is never read: the answer goes out now and the connection closes.
      req.pause();
      res.setHeader('connection', 'close');
      finish(
        invalid(`body: the request body stalled (no data for ${Math.ceil(idleTimeoutMs / 1000)} s); send it again`),
      );
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) return finish(tooLarge(maxBytes));
      chunks.push(chunk);
      clearTimeout(idle);
      idle = setTimeout(stall, idleTimeoutMs);
    };
    const onEnd = () => finish(null);
    const onError = (err: Error) => finish(err);
    idle = setTimeout(stall, idleTimeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function tooLarge(maxBytes: number) {
  return invalid(`body: larger than ${maxBytes} bytes`);
}
