/**
 * The minimum transfer rate of uploads (server/http/body-rate.ts): the sliding window and its
 * grace period on a fake clock, then readMultipartFile refusing a trickle and reading a slow but
 * steady body to its end, and the Node socket's exemption from the request timeout lasting
 * exactly as long as the watch.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isUnderRateFloor, watchRate, type TooSlow } from '../../../server/http/body-rate';
import { readMultipartFile, UploadStalledError } from '../../../server/http/multipart-file';

const FLOOR = { minBytesPerSecond: 1024, windowMs: 30_000 };

describe('watchRate (fake clock)', () => {
  afterEach(() => vi.useRealTimers());

  /** Feeds `bytesPerSecond` (in ten steps a second) for `seconds`; returns when onTooSlow was called, in ms. */
  function feed(bytesPerSecond: number, seconds: number, floor = FLOOR, socket?: object) {
    vi.useFakeTimers();
    let cutAt: number | null = null;
    let slow: TooSlow | undefined;
    const started = Date.now();
    const watch = watchRate(
      floor,
      (s) => {
        cutAt = Date.now() - started;
        slow = s;
      },
      socket,
    );
    for (let t = 0; t < seconds * 10 && cutAt === null; t++) {
      watch.count(bytesPerSecond / 10);
      vi.advanceTimersByTime(100);
    }
    watch.stop();
    return { cutAt: cutAt as number | null, slow };
  }

  it('cuts a 10 B/s trickle once the first window (the grace period) has passed: at 30 s with the defaults', () => {
    const { cutAt, slow } = feed(10, 120);
    expect(cutAt).toBe(30_000);
    expect(slow).toEqual({ received: 300, needed: 30_720, windowSeconds: 30 });
  });

  it('never cuts a body that keeps at or above the floor, however long it lasts', () => {
    expect(feed(1100, 600).cutAt).toBeNull();
    expect(feed(5000, 600).cutAt).toBeNull();
  });

  it('judges the last window only: a fast start does not buy a later trickle more than a window', () => {
    vi.useFakeTimers();
    let cutAt: number | null = null;
    const started = Date.now();
    const watch = watchRate(FLOOR, () => (cutAt = Date.now() - started));
    watch.count(10 * 1024 * 1024); // 10 MiB at once…
    for (let t = 0; t < 1200 && cutAt === null; t++) {
      watch.count(1); // …then 10 B/s
      vi.advanceTimersByTime(100);
    }
    watch.stop();
    // The burst leaves the window 30 s later; the next step judges the trickle.
    expect(cutAt).toBe(33_000);
  });

  it('is off with a floor of 0', () => {
    expect(feed(0, 300, { minBytesPerSecond: 0, windowMs: 30_000 }).cutAt).toBeNull();
  });

  it("exempts the socket from the server's request timeout while watching, and no longer once cut or stopped", () => {
    vi.useFakeTimers();
    const socket = {};
    const watch = watchRate(FLOOR, () => undefined, socket);
    expect(isUnderRateFloor(socket)).toBe(true);
    vi.advanceTimersByTime(31_000); // nothing arrived: cut
    expect(isUnderRateFloor(socket)).toBe(false);
    watch.stop();

    const other = {};
    const steady = watchRate(FLOOR, () => undefined, other);
    steady.count(1_000_000);
    vi.advanceTimersByTime(10_000);
    expect(isUnderRateFloor(other)).toBe(true);
    steady.stop();
    expect(isUnderRateFloor(other)).toBe(false);
    expect(isUnderRateFloor({})).toBe(false);
  });
});

const BOUNDARY = 'rateBOUNDARY';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A fetch Request whose multipart body is `file`, sent `chunk` bytes every `everyMs`. */
function trickled(file: Buffer, chunk: number, everyMs: number): Request {
  const whole = Buffer.concat([HEAD, file, TAIL]);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (at >= whole.length) return controller.close();
      if (at > 0) await new Promise((r) => setTimeout(r, everyMs));
      controller.enqueue(new Uint8Array(whole.subarray(at, at + chunk)));
      at += chunk;
    },
  });
  return new Request('http://local/api/v1/author/media', {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(whole.length) },
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('readMultipartFile: the rate floor', () => {
  it('refuses a body that never pauses but trickles under the floor: a 400 naming it, as a stall (connection closed)', async () => {
    const started = performance.now();
    const err = await readMultipartFile(trickled(Buffer.alloc(50_000, 1), 10, 100), {
      field: 'file',
      maxBytes: 1_000_000,
      idleTimeoutMs: 5_000,
      rateFloor: { minBytesPerSecond: 1000, windowMs: 500 },
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UploadStalledError);
    expect((err as Error).message).toMatch(
      /^file: the upload is too slow \(\d+ bytes in the last 0\.5 s, at least 500 needed\); send it again$/,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('reads a slow but steady body to its end, however many windows it takes', async () => {
    const file = Buffer.alloc(6_000, 7);
    const bytes = await readMultipartFile(trickled(file, 200, 50), {
      field: 'file',
      maxBytes: 1_000_000,
      idleTimeoutMs: 5_000,
      rateFloor: { minBytesPerSecond: 1000, windowMs: 300 },
    });
    expect(bytes.equals(file)).toBe(true);
  });

  it("exempts a Node request's socket from the request timeout while its body is read, and only then", async () => {
    const seen: boolean[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      seen.push(isUnderRateFloor(req.socket));
      const reading = readMultipartFile(req, {
        field: 'file',
        maxBytes: 10_000,
        rateFloor: { minBytesPerSecond: 10, windowMs: 5_000 },
      });
      seen.push(isUnderRateFloor(req.socket));
      reading.then(
        (bytes) => {
          // The body has ended: the watch with it.
          seen.push(isUnderRateFloor(req.socket));
          res.end(bytes);
        },
        () => res.writeHead(400).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const whole = Buffer.concat([HEAD, Buffer.from('NODE'), TAIL]);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (c) => {
          received += c.toString('latin1');
          if (received.includes('NODE')) socket.end();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write(
          `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${whole.length}\r\n\r\n`,
        );
        socket.write(whole.subarray(0, 20));
        setTimeout(() => socket.write(whole.subarray(20)), 100);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(seen).toEqual([false, true, false]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
