/**
 * Editor page bench, run with `npx tsx bench/editor-page.ts` after `npm run build`: how long the
 * service's event loop is blocked while it renders the console's editor page of a maximum-size
 * article (Markdown near 2,000,000 characters), and the size of what it sends.
 *
 * The service is one Node process; while it renders a page nothing else it serves is answered.
 * A probe measures that from outside, in a thread of its own (so reading the big page here does
 * not delay it): a reader beacon (answered from memory, no database) sent every 5 ms during each
 * page load; the slowest probe's latency, less an idle probe's, is the longest stretch the loop
 * was blocked (a probe that arrives at its start waits all of it). Beside it, `/api/health`
 * polled every 20 ms as a load balancer would: its slowest answer, PostgreSQL's round trip
 * included. Each shape is loaded alone (the page; the Markdown it loads afterwards; the preview
 * frame of the saved version) and as a browser loads them (the page, then the other two at
 * once). Reported: the block, the slowest health answer, the response time and bytes, median of
 * RUNS, beside a short article's loaded in the same runs (the control: what any console page
 * costs on this machine at that moment).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { cli } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';

const RUNS = 9;
const SESSION_SECRET = 'editor-page-bench-secret-of-at-least-32-bytes';
const TARGET_CHARS = 1_990_000;

/**
 * Prose near the Markdown limit: headings and paragraphs (denser markup, lists and code, runs
 * past the conversion's CPU budget on this 2-core machine, so the service refuses to store it).
 */
function maximumArticle(): string {
  const parts: string[] = [];
  let length = 0;
  for (let section = 1; length < TARGET_CHARS; section++) {
    const block = [
      `## Section ${section}: tides and harbours`,
      `The boats left the harbour at dawn on day ${section}, when the water was still and the gulls were loud. ` +
        'Each crew checked the nets twice, because the wind turns fast here and nobody wants to row home.',
      'A closing paragraph with a second sentence, and a third one to make it read like prose from the coast.',
    ].join('\n\n');
    parts.push(block);
    length += block.length + 2;
  }
  return parts.join('\n\n').slice(0, TARGET_CHARS);
}

/** The console session cookie for a token: a row as server/console/session-store.ts writes it. */
async function openConsoleSession(url: string, accountId: string): Promise<string> {
  const cookie = randomBytes(32).toString('base64url');
  const key = createHmac('sha256', Buffer.from(SESSION_SECRET)).update('author-publishing:console-session').digest();
  const idHash = createHmac('sha256', key).update(cookie, 'utf8').digest();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `INSERT INTO console_sessions (id_hash, account_id, token_id, csrf_token, created_at, expires_at)
     SELECT $1, $2, id, $3, now(), now() + interval '1 hour' FROM api_tokens WHERE account_id = $2 LIMIT 1`,
    [idHash, accountId, randomBytes(32).toString('base64url')],
  );
  await client.end();
  return cookie;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The prober's code: beacons every 5 ms until told to stop, then the slowest latency (ms). */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
let running = false, worst = 0, worstHealth = 0, idle = [];
async function probe(path) {
  const started = performance.now();
  const res = await fetch(workerData + path, { headers: { 'user-agent': 'Mozilla/5.0 probe' } });
  await res.arrayBuffer();
  return performance.now() - started;
}
const beacon = () => probe('/api/reader/abcdefghij/open.gif');
parentPort.on('message', async (m) => {
  if (m === 'idle') {
    for (let k = 0; k < 20; k++) idle.push(await beacon());
    idle.sort((a, b) => a - b);
    parentPort.postMessage(idle[10]);
  } else if (m === 'start') {
    running = true; worst = 0; worstHealth = 0;
    const inFlight = [];
    // The health check as a load balancer polls it, every 20 ms (it asks PostgreSQL too).
    const health = (async () => {
      while (running) {
        worstHealth = Math.max(worstHealth, await probe('/api/health'));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    while (running) {
      inFlight.push(beacon().then((ms) => { worst = Math.max(worst, ms); }));
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all([...inFlight, health]);
    parentPort.postMessage({ worst, worstHealth });
  } else if (m === 'stop') running = false;
});`;

function prober(base: string) {
  const worker = new Worker(PROBER, { eval: true, workerData: base });
  const answer = <T>() => new Promise<T>((resolve) => worker.once('message', resolve));
  return {
    idle: () => (worker.postMessage('idle'), answer<number>()),
    start: () => {
      const worst = answer<{ worst: number; worstHealth: number }>();
      worker.postMessage('start');
      return { stop: () => (worker.postMessage('stop'), worst) };
    },
    close: () => worker.terminate(),
  };
}

runBench(async () => {
  const bench = await startBenchService('editor-page-bench-', {
    SESSION_SECRET,
    CONTENT_QUEUE_PER_ACCOUNT: '64',
  });
  try {
    const base = bench.service.baseUrl;
    const created = await cli(bench.env, ['account', 'create', 'writer', '--limit', 'read_per_min=10000']);
    const { id: accountId, token } = created.json as { id: string; token: string };
    const markdown = maximumArticle();
    const create = async (title: string, text: string) => {
      const res = await fetch(`${base}/api/v1/author/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title, markdown: text }),
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const large = await create('A maximum-size article', markdown);
    // The control: a short article's editor page, the same page without the size.
    const small = await create('A short article', markdown.slice(0, 2000));
    const cookie = await openConsoleSession(bench.db.url, accountId);

    const probes = prober(base);
    const baseline = await probes.idle();
    // What a browser loads for the editor page: the page, then the deferred Markdown and the
    // preview frame of the saved version together; and each of the three alone.
    const loads = (id: string) => ({
      page: [`/console/articles/${id}`],
      markdown: [`/console/articles/${id}/markdown`],
      preview: [`/console/preview/${id}?version=working`],
      'whole load': [
        `/console/articles/${id}`,
        `/console/articles/${id}/markdown`,
        `/console/preview/${id}?version=working`,
      ],
    });
    type Result = { blocks: number[]; health: number[]; times: number[]; bytes: number };
    const results = new Map<string, Result>();
    const fetchAll = async (paths: string[]) => {
      const bodies = await Promise.all(
        paths.map(async (path) => {
          const answer = await fetch(`${base}${path}`, { headers: { cookie: `dp_console=${cookie}` } });
          const body = await answer.text();
          if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
          return Buffer.byteLength(body);
        }),
      );
      return bodies.reduce((a, b) => a + b, 0);
    };
    // Interleaved: each run loads every shape of both articles, so the machine's load hits them alike.
    for (let run = 0; run < RUNS + 1; run++) {
      for (const [article, id] of [
        ['maximum-size article', large],
        ['short article (control)', small],
      ] as const) {
        for (const [shape, paths] of Object.entries(loads(id))) {
          const probing = probes.start();
          const started = performance.now();
          const bytes = await fetchAll(paths);
          const elapsed = performance.now() - started;
          const worst = await probing.stop();
          if (run === 0) continue; // the first render warms Next's caches
          const key = `${article}: ${shape}`;
          const r = results.get(key) ?? { blocks: [], health: [], times: [], bytes: 0 };
          r.blocks.push(worst.worst - baseline);
          r.health.push(worst.worstHealth);
          r.times.push(elapsed);
          r.bytes = bytes;
          results.set(key, r);
        }
      }
    }
    await probes.close();
    console.log(`Markdown: ${markdown.length.toLocaleString('en')} characters; idle probe ${baseline.toFixed(1)} ms`);
    console.log(
      '| editor page (median of runs) | longest event-loop block | slowest /api/health (every 20 ms) | response time | bytes |',
    );
    console.log('| --- | --- | --- | --- | --- |');
    for (const [name, r] of results)
      console.log(
        `| ${name} | ${median(r.blocks).toFixed(0)} ms (max ${Math.max(...r.blocks).toFixed(0)} ms) | ${median(r.health).toFixed(0)} ms (max ${Math.max(...r.health).toFixed(0)} ms) | ${median(r.times).toFixed(0)} ms | ${r.bytes.toLocaleString('en')} |`,
      );
  } finally {
    await bench.stop();
  }
});
