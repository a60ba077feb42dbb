/**
 * Slow clients on raw sockets. With the defaults (the global service): headers sent one line
 * every 2 s get their 408 within HEADERS_TIMEOUT_MS (15 s) plus Node's 1 s check, well within
 * 30 s; an upload trickled at 10 B/s, never idle long enough for UPLOAD_IDLE_TIMEOUT_MS, is
 * refused once its first 30 s window falls under UPLOAD_MIN_BYTES_PER_SECOND, well within 60 s.
 * With short settings (an extra service): the same refusal in about a second, a slow but steady
 * upload that outlasts REQUEST_TIMEOUT_MS still stored (the rate floor replaces the whole-request
 * deadline for uploads), the same two for the console's upload (through Next, which buffers its
 * body: the floor is counted on the connection), and a JSON body that trickles still cut by
 * that deadline.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newAccount } from '../support/api';
import { openConsoleSession } from './console-session';
import { noisePng, startExtraService, type ExtraService } from './media-helpers';

interface Exchange {
  /** Everything the service sent before the connection closed. */
  answer: string;
  /** From the first byte written to the close, in ms. */
  elapsedMs: number;
}

/**
 * Writes `head` at once, then `drip()`'s pieces one every `everyMs` until it returns null or the
 * service closes the connection; resolves on the close.
 */
function trickle(base: string, head: string, drip: () => Buffer | string | null, everyMs: number): Promise<Exchange> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let received = '';
    const timer = setInterval(() => {
      const piece = socket.destroyed ? null : drip();
      if (piece !== null) socket.write(piece);
    }, everyMs);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer: received, elapsedMs: performance.now() - started });
    });
    socket.on('error', (err) => {
      clearInterval(timer);
      // A reset after the answer is still an answer.
      if (received) resolve({ answer: received, elapsedMs: performance.now() - started });
      else reject(err);
    });
    socket.write(head);
  });
}

/** Request line and headers sent, then one more header line every 2 s, never the blank line. */
function slowHeaders(base: string): Promise<Exchange> {
  const { host } = new URL(base);
  let n = 0;
  return trickle(base, `GET /api/health HTTP/1.1\r\nHost: ${host}\r\n`, () => `X-Slow-${n++}: 1\r\n`, 2_000);
}

const BOUNDARY = 'slow-client-boundary';

/** The head of POST /media (`Connection: close` so that the close follows the answer). */
function uploadHead(base: string, token: string, contentLength: number): string {
  const { host } = new URL(base);
  return [
    'POST /api/v1/author/media HTTP/1.1',
    `Host: ${host}`,
    `Authorization: Bearer ${token}`,
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${contentLength}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
}

const PART_HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
);
const PART_TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A 50 MiB upload that sends one byte every 100 ms (10 B/s): never idle, never done. */
function tenBytesPerSecond(base: string, token: string): Promise<Exchange> {
  let sent = 0;
  const head = uploadHead(base, token, 50 * 1024 * 1024) + PART_HEAD.toString('latin1');
  return trickle(base, head, () => (sent++ < 100_000 ? 'x' : null), 100);
}

function parsed(answer: string): { head: string; json: unknown } {
  const at = answer.indexOf('\r\n\r\n');
  const head = answer.slice(0, at);
  const rest = answer.slice(at + 4);
  // Content-Length or a single chunk.
  const text = rest.startsWith('{') ? rest : rest.split('\r\n')[1]!;
  return { head, json: JSON.parse(text) };
}

describe('slow clients, with the default settings', () => {
  it('cuts slow headers within 30 s (408) and a 10 B/s upload within 60 s (400, connection closed)', async () => {
    const { token } = await newAccount();
    const [headers, upload] = await Promise.all([slowHeaders(baseUrl()), tenBytesPerSecond(baseUrl(), token)]);

    expect(headers.answer).toMatch(/^HTTP\/1\.1 408 /);
    // HEADERS_TIMEOUT_MS (15 s) and Node's check every second.
    expect(headers.elapsedMs).toBeGreaterThan(14_000);
    expect(headers.elapsedMs).toBeLessThan(30_000);

    const { head, json } = parsed(upload.answer);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(json).toEqual({
      error: expect.stringMatching(/^file: the upload is too slow \(\d+ bytes in the last 30 s/),
    });
    // The first window of UPLOAD_RATE_WINDOW_MS (30 s) is its grace period.
    expect(upload.elapsedMs).toBeGreaterThan(29_000);
    expect(upload.elapsedMs).toBeLessThan(60_000);
  }, 90_000);
});

/** The console's upload (a route handler behind Next), from the console's own origin. */
function consoleUploadHead(base: string, session: { cookie: string; csrf: string }, contentLength: number): string {
  const { host, origin } = new URL(base);
  return [
    'POST /console/media/upload HTTP/1.1',
    `Host: ${host}`,
    `Origin: ${origin}`,
    `Cookie: ${session.cookie}`,
    `X-CSRF-Token: ${session.csrf}`,
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${contentLength}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
}

const SESSION_SECRET = 'slow-clients-test-session-secret-0123456789';

describe('slow clients, with short settings', () => {
  const REQUEST_TIMEOUT_MS = 3_000;
  let extra: ExtraService;
  beforeAll(async () => {
    extra = await startExtraService({
      SESSION_SECRET,
      UPLOAD_RATE_WINDOW_MS: '1000',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HEADERS_TIMEOUT_MS: '2000',
    });
  });
  afterAll(async () => {
    await extra?.stop();
  });

  it('refuses a 10 B/s upload once its first window is under the floor: 400 in the error shape, connection closed', async () => {
    const { token } = await newAccount();
    const upload = await tenBytesPerSecond(extra.service.baseUrl, token);
    const { head, json } = parsed(upload.answer);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(json).toEqual({
      error: expect.stringMatching(
        /^file: the upload is too slow \(\d+ bytes in the last 1 s, at least 1024 needed\); send it again$/,
      ),
    });
    expect(upload.elapsedMs).toBeLessThan(5_000);
  });

  it('stores a slow but steady upload that takes longer than REQUEST_TIMEOUT_MS: the rate floor is its only bound', async () => {
    const { token } = await newAccount();
    // 126 × 126 pixels (noisePng wants an even side): some 48 kB.
    const png = await noisePng(0.045);
    const body = Buffer.concat([PART_HEAD, png, PART_TAIL]);
    let at = 0;
    // 2 KiB every 300 ms (about 6.8 kB/s, above the 1 KiB/s floor): some 7 s for ~48 kB.
    const upload = await trickle(
      extra.service.baseUrl,
      uploadHead(extra.service.baseUrl, token, body.length),
      () => {
        if (at >= body.length) return null;
        const piece = body.subarray(at, at + 2048);
        at += 2048;
        return piece;
      },
      300,
    ).catch((err: unknown) => ({ answer: `failed: ${String(err)}`, elapsedMs: NaN }));
    expect(upload.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(upload.elapsedMs).toBeGreaterThan(REQUEST_TIMEOUT_MS + 1_500);
    const { json } = parsed(upload.answer);
    expect(json).toMatchObject({ kind: 'image', status: 'ready' });
  }, 60_000);

  it("stores a slow but steady console upload too, and refuses the console's 10 B/s one", async () => {
    const account = await newAccount();
    const session = await openConsoleSession(SESSION_SECRET, account.id);
    const png = await noisePng(0.045);
    const body = Buffer.concat([PART_HEAD, png, PART_TAIL]);
    let at = 0;
    const base = extra.service.baseUrl;
    const [steady, trickled] = await Promise.all([
      trickle(
        base,
        consoleUploadHead(base, session, body.length),
        () => {
          if (at >= body.length) return null;
          const piece = body.subarray(at, at + 2048);
          at += 2048;
          return piece;
        },
        300,
      ).catch((err: unknown) => ({ answer: `failed: ${String(err)}`, elapsedMs: NaN })),
      (() => {
        let sent = 0;
        const head = consoleUploadHead(base, session, 50 * 1024 * 1024) + PART_HEAD.toString('latin1');
        return trickle(base, head, () => (sent++ < 100_000 ? 'x' : null), 100);
      })(),
    ]);
    expect(steady.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(steady.elapsedMs).toBeGreaterThan(REQUEST_TIMEOUT_MS + 1_500);
    expect(parsed(steady.answer).json).toMatchObject({ ok: true, media: { kind: 'image' } });
    // The console's words for the same floor, well before the request timeout would have come.
    expect(trickled.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(parsed(trickled.answer).json).toEqual({ ok: false, error: expect.stringMatching(/too slow/) });
    expect(trickled.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS);
  }, 60_000);

  it('still cuts a trickled JSON body at REQUEST_TIMEOUT_MS (408): only uploads have a floor instead', async () => {
    const { token } = await newAccount();
    const { host } = new URL(extra.service.baseUrl);
    const body = `{"title":"slow","markdown":"${'x'.repeat(400)}"}`;
    let sent = 0;
    const json = await trickle(
      extra.service.baseUrl,
      [
        'POST /api/v1/author/posts HTTP/1.1',
        `Host: ${host}`,
        `Authorization: Bearer ${token}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        '',
      ].join('\r\n'),
      () => (sent < body.length ? body[sent++]! : null),
      100,
    );
    expect(json.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(json.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2_500);
  });
});
