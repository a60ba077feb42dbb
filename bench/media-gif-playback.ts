/**
 * Checks that animatedGifToMp4 output plays in Chromium's <video> (the GIF island markup),
 * without Playwright: headless Chromium loads a page from a server on 127.0.0.1 and the page
 * reports what the element did. Needs Debian's `chromium` (or CHROMIUM=/path/to/binary).
 * Run: npx tsx bench/media-gif-playback.ts
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { animatedGifToMp4 } from '../server/media/gif-video';
import { readImage } from '../tests/support/image-corpus';

const gif = readImage('gif-animated-rotating-squares.gif');
const video = await animatedGifToMp4(gif);

const page = `<!doctype html><body><div class="dp-gif" data-gif="x"><video id="v" src="/v.mp4" autoplay loop muted playsinline></video></div>
<script>
const v = document.getElementById('v');
const report = (s) => document.body.setAttribute('data-state', s);
report('pending');
v.addEventListener('error', () => report('error ' + (v.error && v.error.code)));
v.addEventListener('timeupdate', () => { if (v.currentTime > 0.2) report('playing ' + v.videoWidth + 'x' + v.videoHeight + ' canPlayType=' + v.canPlayType('video/mp4; codecs="avc1.64000d"')); });
</script></body>`;

const server = createServer((req, res) => {
  if (req.url === '/v.mp4')
    return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video.mp4.length }).end(video.mp4);
  res.writeHead(200, { 'content-type': 'text/html' }).end(page);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

try {
  const dom = await new Promise<string>((resolve, reject) => {
    // execFileSync would block the event loop that serves the page, so run it off-thread.
    import('node:child_process').then(({ execFile }) =>
      execFile(
        process.env.CHROMIUM ?? 'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--autoplay-policy=no-user-gesture-required',
          '--virtual-time-budget=4000',
          '--dump-dom',
          `http://127.0.0.1:${port}/`,
        ],
        { timeout: 60_000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    );
  });
  const state = dom.match(/data-state="([^"]*)"/)?.[1] ?? 'no state';
  console.log(
    JSON.stringify({
      mp4Bytes: video.mp4.length,
      size: `${video.width}x${video.height}`,
      chromium: execFileSync(process.env.CHROMIUM ?? 'chromium', ['--version'])
        .toString()
        .trim(),
      state,
    }),
  );
  if (!state.startsWith('playing')) process.exitCode = 1;
} finally {
  server.close();
}
