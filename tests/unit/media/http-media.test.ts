/**
 * The HTTP-only pieces of the media routes that need no server: the Range parser of
 * GET /api/media/{uuid} and the multipart reader of POST /media.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../server/foundation/errors';
import { parseRange } from '../../../server/http/media-serve';
import { readMultipartFile } from '../../../server/http/multipart-file';

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=5-', { start: 5, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-1000', { start: 0, end: 99 }],
    ['bytes=90-1000', { start: 90, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=100-200', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=9-3', null],
    ['bytes=0-1,4-5', null],
    ['items=0-1', null],
    ['bytes=-', null],
    ['garbage', null],
  ] as const)('%s of 100 bytes → %j', (header, want) => {
    expect(parseRange(header, 100)).toEqual(want);
  });
  it('no header is no range', () => expect(parseRange(null, 100)).toBeNull());
});

const BOUNDARY = 'unitBOUNDARY';
function multipart(parts: Array<{ name: string; filename?: string; body: Buffer | string }>, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${p.filename ? 'Content-Type: image/png\r\n' : ''}\r\n`,
      ),
    );
    chunks.push(Buffer.from(p.body));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}
const request = (body: Buffer, type = `multipart/form-data; boundary=${BOUNDARY}`) =>
  new Request('http://local/api/v1/author/media', {
    method: 'POST',
    headers: { 'content-type': type },
    body: new Uint8Array(body),
  });
const read = (req: Request, maxBytes = 1000) => readMultipartFile(req, { field: 'file', maxBytes });
async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).kind).toBe('invalid');
  return (err as DomainError).message;
}

describe('readMultipartFile', () => {
  it('returns the bytes of the one file part, other text fields ignored', async () => {
    const bytes = await read(
      request(
        multipart([
          { name: 'note', body: 'hello' },
          { name: 'file', filename: 'a.png', body: 'PNGDATA' },
        ]),
      ),
    );
    expect(bytes.toString()).toBe('PNGDATA');
  });
  it('returns an empty buffer for an empty file (the image check refuses it)', async () => {
    expect((await read(request(multipart([{ name: 'file', filename: 'a.png', body: '' }])))).length).toBe(0);
  });
  it('refuses every malformed shape with 400', async () => {
    expect(await refusal(read(request(multipart([{ name: 'note', body: 'x' }]))))).toMatch(/is required/);
    expect(
      await refusal(
        read(
          request(
            multipart([
              { name: 'file', filename: 'a', body: 'x' },
              { name: 'file', filename: 'b', body: 'y' },
            ]),
          ),
        ),
      ),
    ).toMatch(/exactly one file/);
    expect(await refusal(read(request(multipart([{ name: 'image', filename: 'a', body: 'x' }]))))).toMatch(
      /unexpected file field "image"/,
    );
    expect(await refusal(read(request(multipart([{ name: 'file', body: 'text' }]))))).toMatch(/must be a file part/);
    expect(await refusal(read(request(multipart([{ name: 'file', filename: 'a', body: 'x' }], false))))).toMatch(
      /truncated or malformed/,
    );
    expect(await refusal(read(request(Buffer.from('{}'), 'application/json')))).toMatch(/multipart\/form-data/);
    expect(await refusal(read(request(Buffer.from('x'), 'multipart/form-data')))).toMatch(/multipart\/form-data/);
  });
  it('refuses a file over the cap while streaming, and a declared length over it before reading', async () => {
    expect(
      await refusal(read(request(multipart([{ name: 'file', filename: 'a', body: Buffer.alloc(1001) }])))),
    ).toMatch(/larger than 1000 bytes/);
    const declared = new Request('http://local/x', {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(10 * 1024 * 1024),
      },
      body: 'x',
    });
    expect(await refusal(read(declared))).toMatch(/larger than 1000 bytes/);
  });
});

describe('readMultipartFile: a body that stops arriving', () => {
  it('is refused with a 400 naming the stall once no chunk came for idleTimeoutMs, without waiting for the rest', async () => {
    const head = multipart([{ name: 'file', filename: 'a.png', body: 'PNGDATA' }], false);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(head));
        // …and then nothing: neither more bytes nor the end.
      },
    });
    const req = new Request('http://local/api/v1/author/media', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': '52428800' },
      body,
      duplex: 'half',
    } as RequestInit);
    const message = await refusal(
      readMultipartFile(req, { field: 'file', maxBytes: 60 * 1024 * 1024, idleTimeoutMs: 100 }),
    );
    expect(message).toMatch(/^file: the upload stalled/);
  });

  it('a body that keeps arriving in small pieces is read to its end', async () => {
    const whole = multipart([{ name: 'file', filename: 'a.png', body: 'x'.repeat(5000) }]);
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (at >= whole.length) return controller.close();
        await new Promise((r) => setImmediate(r));
        controller.enqueue(new Uint8Array(whole.subarray(at, at + 100)));
        at += 100;
      },
    });
    const req = new Request('http://local/api/v1/author/media', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const bytes = await readMultipartFile(req, { field: 'file', maxBytes: 10_000, idleTimeoutMs: 5_000 });
    expect(bytes.toString()).toBe('x'.repeat(5000));
  });
});

describe('readMultipartFile: a Node request (the REST server hands its own)', () => {
  /** Sends `body` to a loopback server whose handler reads it with readMultipartFile. */
  async function readOnServer(body: Buffer, maxBytes: number): Promise<Buffer | string> {
    const server = createServer((req: IncomingMessage, res) => {
      readMultipartFile(req, { field: 'file', maxBytes }).then(
        (bytes) => res.end(bytes),
        (err: DomainError) => res.writeHead(400).end(`refused: ${err.message}`),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: new Uint8Array(body),
      });
      const answer = Buffer.from(await res.arrayBuffer());
      return res.status === 200 ? answer : answer.toString();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('returns the bytes of the file part', async () => {
    const bytes = await readOnServer(multipart([{ name: 'file', filename: 'a.png', body: 'NODEPNG' }]), 1000);
    expect(bytes).toEqual(Buffer.from('NODEPNG'));
  });

  it('refuses a file over the cap with the same sentence as for a fetch Request', async () => {
    const answer = await readOnServer(multipart([{ name: 'file', filename: 'a.png', body: 'x'.repeat(2000) }]), 1000);
    expect(answer).toMatch(/^refused: file: larger than 1000 bytes/);
  });
});
