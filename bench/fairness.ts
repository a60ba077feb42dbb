/**
 * Fairness benchmark: one account floods the service with console live previews and 1 MB
 * token-dense article writes while a second account makes normal writes (3 KB) and GET /me
 * reads. Reports the second account's write latency and GET /me p99 against a quiet run of the
 * same load (target: at most 2x), the flooder's outcomes (how many were refused with 503), and
 * the service's peak RSS (worker threads included: they live in the same process).
 *
 *   npm run build && npx tsx bench/fairness.ts [--seconds 15]
 *
 * Starts its own embedded PostgreSQL and service instance on loopback. The console session of
 * the flooder is opened in the database as sign-in would (a keyed hash of the cookie).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cli } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';
import { formatRow, HEADER, runLoad, type LoadResult } from './load';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' } } });
const SECONDS = Number(values.seconds);
const SECRET = `fairness-bench-${randomBytes(24).toString('hex')}`;
const UNLIMITED = ['read_per_min', 'write_per_min', 'publish_per_min', 'media_per_min'].flatMap((k) => [
  '--limit',
  `${k}=100000000`,
]);

/** Resident set of a process now and at its peak (Linux /proc), in MiB. */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main() {
  const bench = await startBenchService('publishing-bench-', { SESSION_SECRET: SECRET });
  const { db, service, env } = bench;
  const create = async (handle: string) =>
    (await cli(env, ['account', 'create', handle, ...UNLIMITED])).json as { id: string; token: string };
  const flooder = await create('flooder');
  const victim = await create('victim');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();

  try {
    // The flooder's console session.
    const cookie = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    const key = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update('author-publishing:console-session').digest();
    await client.query(
      `INSERT INTO console_sessions (id_hash, account_id, token_id, csrf_token, created_at, expires_at)
       SELECT $1, $2, t.id, $3, now(), now() + interval '1 hour' FROM api_tokens t WHERE t.account_id = $2 LIMIT 1`,
      [createHmac('sha256', key).update(cookie, 'utf8').digest(), flooder.id, csrf],
    );

    const pid = service.process.pid!;
    let peakSampled = 0;
    const sampler = setInterval(() => (peakSampled = Math.max(peakSampled, rss(pid).now)), 100);

    const victimAuth = { authorization: `Bearer ${victim.token}` };
    const normalWrite = JSON.stringify({ title: BENCH_TITLE, markdown: BENCH_MARKDOWN });
    const victimLoad = () =>
      Promise.all([
        runLoad(
          service.baseUrl,
          () => ({
            method: 'POST',
            path: '/api/v1/author/posts',
            headers: { ...victimAuth, 'content-type': 'application/json' },
            body: normalWrite,
          }),
          { concurrency: 1, durationMs: SECONDS * 1000 },
        ),
        runLoad(service.baseUrl, () => ({ path: '/api/v1/author/me', headers: victimAuth }), {
          concurrency: 4,
          durationMs: SECONDS * 1000,
        }),
      ]);

    // Token-dense Markdown just under the 1 MB cap: emphasis, code spans, links and entities.
    const dense = '*a* `b` [c](d) &amp; **e** _f_ '.repeat(40) + '\n\n';
    const pathological = JSON.stringify({
      title: 'Flood',
      markdown: dense.repeat(Math.floor(1_000_000 / dense.length)),
    });
    const previewForm = new URLSearchParams({
      csrf,
      title: 'Preview flood',
      markdown: dense.repeat(Math.floor(200_000 / dense.length)),
    }).toString();

    // Warm-up: workers started, statements prepared.
    await victimLoad();

    const rssBeforeQuiet = rss(pid);
    const [writesQuiet, meQuiet] = await victimLoad();

    const floodMs = SECONDS * 1000 + 2000;
    const flood = Promise.all([
      runLoad(
        service.baseUrl,
        () => ({
          method: 'POST',
          path: '/api/v1/author/posts',
          headers: { authorization: `Bearer ${flooder.token}`, 'content-type': 'application/json' },
          body: pathological,
        }),
        { concurrency: 4, durationMs: floodMs },
      ),
      runLoad(
        service.baseUrl,
        () => ({
          method: 'POST',
          path: '/console/preview/live',
          headers: {
            cookie: `dp_console=${cookie}`,
            origin: service.baseUrl, // as the editor's form sends it (same-origin.ts)
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: previewForm,
        }),
        { concurrency: 4, durationMs: floodMs },
      ),
    ]);
    await new Promise((r) => setTimeout(r, 1000)); // let the flood fill the queue first
    const [writesLoaded, meLoaded] = await victimLoad();
    const [floodWrites, floodPreviews] = await flood;
    clearInterval(sampler);
    const after = rss(pid);

    const rows: string[] = [HEADER];
    const add = (name: string, r: LoadResult) => rows.push(formatRow(name, r));
    add('victim POST /posts 3 KB c=1 (quiet)', writesQuiet);
    add('victim POST /posts 3 KB c=1 (flood)', writesLoaded);
    add('victim GET /me c=4 (quiet)', meQuiet);
    add('victim GET /me c=4 (flood)', meLoaded);
    add('flooder POST /posts 1 MB c=4', floodWrites);
    add('flooder console preview 200 KB c=4', floodPreviews);

    console.log(
      `\n${SECONDS} s per run; ${process.platform}, ${(await import('node:os')).availableParallelism()} cores\n`,
    );
    console.log(rows.join('\n'));
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(`\nvictim write p50 flood/quiet: ${ratio(writesLoaded.p50, writesQuiet.p50)}`);
    console.log(`victim write p99 flood/quiet: ${ratio(writesLoaded.p99, writesQuiet.p99)} (target ≤ 2)`);
    console.log(`victim GET /me p99 flood/quiet: ${ratio(meLoaded.p99, meQuiet.p99)} (target ≤ 2)`);
    console.log(
      `service RSS: ${rssBeforeQuiet.now.toFixed(0)} MiB before the runs, peak ${Math.max(peakSampled, after.peak).toFixed(0)} MiB (VmHWM ${after.peak.toFixed(0)} MiB)`,
    );
  } finally {
    await client.end();
    await bench.stop();
  }
}

runBench(main);
