/**
 * Reads the one file of a `multipart/form-data` request (contract: POST /media: field `file`) with a
 * hard byte cap, streaming: the body goes through @fastify/busboy chunk by chunk and only the
 * file's own bytes are kept, in one buffer that grows (doubling) as they arrive. The declared
 * Content-Length only refuses a body that would be too large: it is never allocated up front, so
 * a sender that announces 50 MiB and trickles holds only what it actually sent. A body that
 * stops arriving for `idleTimeoutMs` is refused (400) and no longer read, instead of holding its
 * buffer until the server's request timeout; so is one that keeps arriving, but slower than the
 * rate floor (UPLOAD_MIN_BYTES_PER_SECOND averaged over UPLOAD_RATE_WINDOW_MS: body-rate.ts),
 * which replaces a whole-body deadline: a real upload on a slow link takes as long as it needs.
 *
 * Every problem with the request's shape is a 400 without code, as the contract lists for a missing or
 * oversized file. That includes a body that is not multipart at all: the field `file` is then
 * missing, and the contract's 422 row ("content-type checks for media") is read as the check of the
 * file's content (an animated image), the only 422 POST /media names.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import { env } from '../foundation/env';
import { DomainError, invalid } from '../foundation/errors';
import { tooSlowMessage, uploadRateFloor, watchRate, type RateFloor, type TooSlow } from './body-rate';

export interface MultipartFileOptions {
  field: string;
  maxBytes: number;
  /** Longest pause between two chunks of the body; UPLOAD_IDLE_TIMEOUT_MS by default. */
  idleTimeoutMs?: number;
  /** Least average rate of the body; UPLOAD_MIN_BYTES_PER_SECOND over UPLOAD_RATE_WINDOW_MS by default. */
  rateFloor?: RateFloor;
}

/**
 * The body stopped arriving, or arrives slower than the rate floor: a 400 like the other shape
 * problems, after which the connection is closed (the rest of the body will not be read, and the
 * client may never send it).
 */
export class UploadStalledError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'UploadStalledError';
  }
}

/** Room for the multipart framing around the file (boundaries, part headers, a few small fields). */
const FRAMING_ALLOWANCE = 64 * 1024;

/** First allocation of the file buffer, whatever the declared size; it doubles from there. */
const INITIAL_CAPACITY = 64 * 1024;

/**
 * `req` is the Node request itself (POST /media on the Node server) or a fetch `Request` (the
 * console's route handler, which Next hands one); either way the body is read as a Node stream.
 */
export async function readMultipartFile(
  req: IncomingMessage | Request,
  { field, maxBytes, idleTimeoutMs = env.UPLOAD_IDLE_TIMEOUT_MS, rateFloor = uploadRateFloor() }: MultipartFileOptions,
): Promise<Buffer> {
  const { type, length, body, socket } = partsOf(req);
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw invalid(
      `${field}: send multipart/form-data with the image in field "${field}" (let the HTTP client set the Content-Type and boundary)`,
    );
  }
  const declared = Number(length ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes + FRAMING_ALLOWANCE) throw tooLarge(field, maxBytes);
  if (!body) throw invalid(`${field}: is required`);

  let parser;
  try {
    parser = new Busboy({
      headers: { 'content-type': type },
      limits: { fileSize: maxBytes, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 30, headerPairs: 50 },
    });
  } catch {
    throw invalid(`${field}: malformed multipart Content-Type`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    let result: Buffer | null = null;
    let fileCount = 0;
    let failed = false;
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    const fail = (err: DomainError, stalled = false) => {
      if (failed) return;
      failed = true;
      settled = true;
      clearTimeout(idle);
      body.unpipe(parser);
      // A stalled sender is not waited for: the body is left unread and the answer goes out now.
      if (stalled) {
        rate.stop();
        body.pause();
      } else drain(body, maxBytes + FRAMING_ALLOWANCE);
      reject(err);
    };
    const stall = () =>
      fail(
        new UploadStalledError(
          `${field}: the upload stalled (no data for ${Math.ceil(idleTimeoutMs / 1000)} s); send it again`,
        ),
        true,
      );
    // The floor keeps watching while a refused body is drained (or after the file, if the sender
    // goes on): a body no longer wanted that still trickles is cut there.
    const tooSlow = (slow: TooSlow) => {
      if (settled) return void body.destroy();
      fail(new UploadStalledError(`${field}: ${tooSlowMessage(slow)}`), true);
    };
    const rate = watchRate(rateFloor, tooSlow, socket);
    idle = setTimeout(stall, idleTimeoutMs);
    body.on('data', (chunk: Buffer) => {
      rate.count(chunk.length);
      if (failed) return;
      clearTimeout(idle);
      idle = setTimeout(stall, idleTimeoutMs);
    });
    body.on('end', () => {
      clearTimeout(idle);
      rate.stop();
    });
    body.on('close', () => rate.stop());

    parser.on('file', (name: string, stream: BusboyFileStream) => {
      fileCount++;
      if (name !== field) {
        stream.resume();
        return fail(
          invalid(`${field}: unexpected file field "${name.slice(0, 50)}"; send the image in field "${field}"`),
        );
      }
      if (fileCount > 1) {
        stream.resume();
        return fail(invalid(`${field}: send exactly one file`));
      }
      const sink = new GrowingBuffer(INITIAL_CAPACITY, maxBytes);
      stream.on('data', (chunk: Buffer) => sink.append(chunk));
      stream.on('limit', () => fail(tooLarge(field, maxBytes)));
      stream.on('error', () => fail(invalid(`${field}: the multipart body is truncated or malformed`)));
      stream.on('end', () => {
        if (!stream.truncated) result = sink.take();
      });
    });
    parser.on('field', (name: string) => {
      if (name === field) fail(invalid(`${field}: must be a file part (with a filename), not a text field`));
    });
    parser.on('filesLimit', () => fail(invalid(`${field}: send exactly one file`)));
    parser.on('partsLimit', () => fail(invalid('body: too many multipart parts')));
    parser.on('fieldsLimit', () => fail(invalid('body: too many multipart fields')));
    parser.on('error', () => fail(invalid(`${field}: the multipart body is truncated or malformed`)));
    parser.on('finish', () => {
      clearTimeout(idle);
      if (failed) return;
      if (fileCount === 0) return fail(invalid(`${field}: is required (a file part named "${field}")`));
      if (result === null) return fail(invalid(`${field}: the multipart body is truncated or malformed`));
      settled = true;
      resolve(result);
    });
    body.on('error', () => {
      rate.stop();
      fail(invalid(`${field}: the request body could not be read`));
    });
    body.pipe(parser);
  });
}

/**
 * The Content-Type, the declared Content-Length and the body stream of either kind of request,
 * and the connection of a Node request (exempt from the server's request timeout while its body
 * is read under the rate floor: body-rate.ts).
 */
function partsOf(req: IncomingMessage | Request): {
  type: string;
  length: string | null;
  body: Readable | null;
  socket?: object;
} {
  // Asked of the Node side: Next hands route handlers its own subclass of `Request`.
  if (req instanceof Readable)
    return {
      type: req.headers['content-type'] ?? '',
      length: req.headers['content-length'] ?? null,
      body: req,
      socket: req.socket,
    };
  return {
    type: req.headers.get('content-type') ?? '',
    length: req.headers.get('content-length'),
    body: req.body ? Readable.fromWeb(req.body as import('node:stream/web').ReadableStream<Uint8Array>) : null,
  };
}

/**
 * After a refusal the rest of the body is read and dropped, up to a cap: a client still sending
 * then gets our 400 instead of a reset connection; past the cap the stream is cut.
 */
function drain(body: Readable, cap: number) {
  let seen = 0;
  body.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > cap) body.destroy();
  });
  body.on('error', () => undefined);
  body.resume();
}

const tooLarge = (field: string, maxBytes: number) => invalid(`${field}: larger than ${maxBytes} bytes (50 MiB)`);

/** Doubling growth, capped at `max`: memory follows the bytes received, not the bytes announced. */
class GrowingBuffer {
  private buffer: Buffer;
  private length = 0;

  constructor(
    capacity: number,
    private readonly max: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(1, capacity));
  }

  append(chunk: Buffer) {
    const needed = this.length + chunk.length;
    // Busboy stops the stream at `max` (and flags it truncated); never grow past that.
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(needed, this.buffer.length * 2), Math.max(needed, this.max)));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.length);
    this.length = needed;
  }

  take(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
