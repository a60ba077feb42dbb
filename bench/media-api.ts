/**
 * Media figures through HTTP, against a service instance of its own:
 *   1. POST /media with a ~46 MiB PNG (random pixels, so it stays near the 50 MiB cap):
 *      upload throughput and the server process's peak RSS while it streams, normalizes
 *      and stores the file;
 *   2. POST /posts whose Markdown holds 20 external images, each served by a local
 *      127.0.0.1 server after 200 ms: the wall time of the whole write (rehost included).
 *
 *   npm run build && npx tsx bench/media-api.ts [--runs 3]
 *
 * RSS is sampled from /proc/<pid>/status every 5 ms (Linux); the baseline is taken after a
 * warm-up upload so that lazily loaded code (sharp, the storage) is not counted as upload cost.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { cli } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const MiB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function main() {
  const bench = await startBenchService('publishing-media-bench-', { ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8' });
  const { service, env } = bench;
  const L = '--limit';
  const account = (
    await cli(env, [
      'account',
      'create',
      'media-bench',
      L,
      'media_per_min=100000',
      L,
      'write_per_min=100000',
      L,
      'daily_media_bytes=100000000000',
    ])
  ).json as { token: string };
  const auth = { authorization: `Bearer ${account.token}` };
  const pid = service.process.pid!;

  try {
    // 1. Upload ---------------------------------------------------------------------------
    const side = 4000; // 4000² RGB noise ≈ 46 MiB as PNG
    const big = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const form = (bytes: Buffer) => {
      const f = new FormData();
      f.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'big.png');
      return f;
    };
    const upload = async (bytes: Buffer) => {
      const res = await fetch(`${service.baseUrl}/api/v1/author/media`, {
        method: 'POST',
        headers: auth,
        body: form(bytes),
      });
      const body = (await res.json()) as { byte_size?: number; error?: string };
      if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
    await upload(
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
        .png()
        .toBuffer(),
    ); // warm-up
    for (let run = 0; run < RUNS; run++) {
      const baseline = rssOf(pid);
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 5);
      const started = performance.now();
      const stored = await upload(big);
      const ms = performance.now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, rssOf(pid));
      console.log(
        JSON.stringify({
          bench: 'POST /media 50 MiB-class PNG',
          run,
          inputMiB: +(big.length / MiB).toFixed(1),
          storedMiB: +((stored.byte_size ?? 0) / MiB).toFixed(1),
          ms: Math.round(ms),
          throughputMiBps: +(big.length / MiB / (ms / 1000)).toFixed(1),
          serverRssBeforeMiB: Math.round(baseline / MiB),
          serverRssPeakMiB: Math.round(peak / MiB),
          serverRssGrowthMiB: Math.round((peak - baseline) / MiB),
        }),
      );
    }

    // 2. A write with 20 external images at 200 ms each -----------------------------------
    const LATENCY = 200;
    const photo = await sharp(randomBytes(1200 * 800 * 3), { raw: { width: 1200, height: 800, channels: 3 } })
      .jpeg({ quality: 80 })
      .toBuffer();
    let hits = 0;
    const images = createServer((_req, res) => {
      hits++;
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo),
        LATENCY,
      );
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const port = (images.address() as AddressInfo).port;
    try {
      for (let run = 0; run < RUNS; run++) {
        const markdown = Array.from(
          { length: 20 },
          (_, i) => `![photo ${i}](http://127.0.0.1:${port}/r${run}/photo-${i}.jpg)`,
        ).join('\n\n');
        hits = 0;
        const started = performance.now();
        const res = await fetch(`${service.baseUrl}/api/v1/author/posts`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Twenty photos ${run}`, markdown }),
        });
        const ms = performance.now() - started;
        const body = (await res.json()) as { rehost_failed?: string[] };
        console.log(
          JSON.stringify({
            bench: 'POST /posts with 20 external images (200 ms latency each)',
            run,
            status: res.status,
            ms: Math.round(ms),
            fetched: hits,
            failed: body.rehost_failed?.length ?? 0,
            imageKiB: Math.round(photo.length / 1024),
            serialWouldBeMs: 20 * LATENCY,
          }),
        );
      }
    } finally {
      await new Promise<void>((resolve) => images.close(() => resolve()));
    }
  } finally {
    await bench.stop();
  }
}

runBench(main);
