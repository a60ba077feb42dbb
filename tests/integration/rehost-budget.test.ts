/**
 * Rehost holds no more than its per-write budget and the process's download turns: bytes are
 * claimed before they are held, bytes downloaded but not stored count toward the write's 50 MiB
 * (not toward the daily quota), and downloads across the process are capped. Against files
 * served by this test on 127.0.0.1, which counts what it actually sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newAccount } from '../support/api';
import { noisePng, solidPng, startExtraService, type ExtraService } from './media-helpers';
import { API_ONLY } from '../support/service';

interface CountingServer {
  url(path: string): string;
  /** Responses whose whole body was handed to the socket. */
  finished: number;
  /** Responses whose client hung up after the headers, before any of the body was sent. */
  refusedAtHeaders: number;
  /** Most requests open at once. */
  peak: number;
  close(): Promise<void>;
}

/**
 * `delayMs` before the headers; `bodyAfterMs` between the headers and the body, which gives a
 * client that refuses a file at its Content-Length the time to hang up before any byte is sent.
 */
async function countingServer(
  body: (path: string) => Buffer,
  { delayMs = 0, bodyAfterMs = 0 } = {},
): Promise<CountingServer> {
  let open = 0;
  const state = { finished: 0, peak: 0, refusedAtHeaders: 0 };
  const server: Server = createServer((req, res) => {
    open++;
    state.peak = Math.max(state.peak, open);
    res.on('close', () => {
      open--;
      // Counted when the client hangs up, not when the body would have been due: a download
      // whose request came in late under load is refused as promptly, and the test may read the
      // count as soon as the write that refused it has answered.
      if (!res.writableEnded) state.refusedAtHeaders++;
    });
    res.on('finish', () => state.finished++);
    const bytes = body(req.url ?? '/');
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
      res.flushHeaders();
      setTimeout(() => {
        if (!res.destroyed) res.end(bytes);
      }, bodyAfterMs);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    get finished() {
      return state.finished;
    },
    get peak() {
      return state.peak;
    },
    get refusedAtHeaders() {
      return state.refusedAtHeaders;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('rehost byte budget and download turns', () => {
  it('claims bytes before holding them: files that are not images still count toward the 50 MiB of the write, not the daily quota', async () => {
    // Eight 10 MiB files of junk: five fill the write's 50 MiB, the other three are refused at
    // their headers instead of being downloaded alongside (80 MiB held before).
    const junk = Buffer.alloc(10 * 1024 * 1024, 7);
    const files = await countingServer(() => junk, { bodyAfterMs: 1500 });
    try {
      const { token } = await newAccount();
      const urls = Array.from({ length: 8 }, (_, i) => files.url(`/junk/${i}.png`));
      const res = await api('POST', '/posts', {
        token,
        json: { title: 'Budget', markdown: urls.map((u) => `![j](${u})`).join('\n\n') },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.rehost_failed).toHaveLength(8);
      expect(res.body.warnings).toEqual([
        expect.stringMatching(/50 MiB\) of images per write; 8 image\(s\) not stored/),
      ]);
      // At most five bodies were sent in full (all eight before); the rest were refused at their
      // headers or, once the 50 MiB were spent, never requested.
      expect(files.finished).toBeLessThanOrEqual(5);
      const me = await api('GET', '/me', { token });
      expect(me.body.limits.daily_media_bytes_used).toBe(0);
    } finally {
      await files.close();
    }
  }, 120_000);

  describe('with MEDIA_DOWNLOADS_IN_FLIGHT=2', () => {
    let extra: ExtraService;
    beforeAll(async () => {
      extra = await startExtraService({ ...API_ONLY, MEDIA_DOWNLOADS_IN_FLIGHT: '2' });
    });
    afterAll(async () => {
      await extra?.stop();
    });

    it('two writes of six images each never have more than two downloads open at once in the process', async () => {
      const png = await solidPng(20, 20);
      const files = await countingServer(() => png, { delayMs: 100 });
      try {
        const { token } = await newAccount();
        const write = (n: number) =>
          extra.call('POST', '/posts', {
            token,
            json: {
              title: `Turns ${n}`,
              markdown: Array.from({ length: 6 }, (_, i) => `![p](${files.url(`/w${n}/${i}.png`)})`).join('\n\n'),
            },
          });
        const results = await Promise.all([write(1), write(2)]);
        for (const r of results) {
          expect(r.status, r.text).toBe(201);
          expect(r.body.rehost_failed).toBeUndefined();
        }
        expect(files.finished).toBe(12);
        expect(files.peak).toBe(2);
      } finally {
        await files.close();
      }
    }, 120_000);
  });

  describe('with MEDIA_DOWNLOAD_MEMORY_MB=1', () => {
    let extra: ExtraService;
    beforeAll(async () => {
      extra = await startExtraService({ ...API_ONLY, MEDIA_DOWNLOAD_MEMORY_MB: '1' });
    });
    afterAll(async () => {
      await extra?.stop();
    });

    it('from-url refuses a file larger than the process budget with 503 service_unavailable (not the caller’s fault), and stores one within it', async () => {
      const [large, small] = await Promise.all([noisePng(1.2), noisePng(0.4)]);
      const files = await countingServer((path) => (path.startsWith('/large') ? large : small));
      try {
        const { token } = await newAccount();
        const refused = await extra.call('POST', '/media/from-url', { token, json: { url: files.url('/large.png') } });
        expect(refused.status, refused.text).toBe(503);
        expect(refused.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
        const stored = await extra.call('POST', '/media/from-url', { token, json: { url: files.url('/small.png') } });
        expect(stored.status, stored.text).toBe(200);
      } finally {
        await files.close();
      }
    }, 120_000);

    it('never holds more downloaded bytes than the process budget: a file that would pass it fails (rehost_failed), and the bytes come back once the image is stored', async () => {
      // Three files of about 0.6 MiB whose bodies come 3 s after their headers: all three are
      // claimed at their headers, and only one fits in 1 MiB (three were held at once before).
      const png = await noisePng(0.6);
      expect(png.length).toBeGreaterThan(512 * 1024);
      const files = await countingServer(() => png, { bodyAfterMs: 3000 });
      try {
        const { token } = await newAccount();
        const urls = Array.from({ length: 3 }, (_, i) => files.url(`/big/${i}.png`));
        const res = await extra.call('POST', '/posts', {
          token,
          json: { title: 'Memory', markdown: urls.map((u) => `![b](${u})`).join('\n\n') },
        });
        expect(res.status, res.text).toBe(201);
        const failed = (res.body as any).rehost_failed as string[];
        expect(failed).toHaveLength(2);
        for (const url of failed) expect(urls).toContain(url);
        expect(files.finished).toBe(1);
        expect(files.refusedAtHeaders).toBe(2);

        // Given back once stored: the same file alone is downloaded and stored.
        const again = await extra.call('POST', '/posts', {
          token,
          json: { title: 'Memory again', markdown: `![b](${files.url('/big/again.png')})` },
        });
        expect(again.status, again.text).toBe(201);
        expect((again.body as any).rehost_failed).toBeUndefined();
      } finally {
        await files.close();
      }
    }, 120_000);
  });
});
