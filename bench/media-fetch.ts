/**
 * 20 external images, each answered after 200 ms, fetched through the SSRF guard and normalized
 * with a bounded pool (what rehost does per write). The target is well under 2 s, so a write
 * with many images does not keep its client waiting much longer than one download.
 * Run: npx tsx bench/media-fetch.ts   — a server on 127.0.0.1 plays the external hosts;
 * the stub resolver maps their names there, so no DNS or outside address is involved.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { parseAllowList } from '../server/media/address-policy';
import { fetchRemoteMedia } from '../server/media/remote-media';
import { createMediaWork } from '../server/media/work';

const LATENCY_MS = 200;
const IMAGES = 20;
// Noise, so the JPEG weighs what a photo does (~300 KiB) and decoding is not trivially cheap.
const image = await sharp(randomBytes(1200 * 800 * 3), { raw: { width: 1200, height: 800, channels: 3 } })
  .jpeg({ quality: 80 })
  .toBuffer();

const server = createServer((_req, res) => {
  setTimeout(() => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(image), LATENCY_MS);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const urls = Array.from({ length: IMAGES }, (_, i) => `http://img${i}.cdn.test:${port}/photo-${i}.jpg`);
const fetchOptions = {
  allowList: parseAllowList('127.0.0.0/8'),
  resolver: async () => [{ address: '127.0.0.1', family: 4 as const }],
};

async function pool<T>(items: string[], limit: number, work: (item: string) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

for (const limit of [1, 4, 8, 20]) {
  // The process-wide download cap at least as high as this run's concurrency, so only `limit` limits.
  const work = createMediaWork({
    downloadsInFlight: 20,
    downloadMemoryBytes: 256 * 1024 * 1024,
    gifConversionsInFlight: 1,
  });
  const started = performance.now();
  const results = await pool(urls, limit, (url) =>
    fetchRemoteMedia(url, work, { fetch: fetchOptions, animatedGif: 'refuse' }),
  );
  const elapsed = performance.now() - started;
  console.log(
    JSON.stringify({
      images: results.length,
      latencyMs: LATENCY_MS,
      concurrency: limit,
      totalMs: Math.round(elapsed),
      imageKiB: Math.round(image.length / 1024),
    }),
  );
}
server.close();
