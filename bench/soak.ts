/**
 * Memory soak: one service instance under a steady mixed load of one integration for a long
 * time, its memory sampled at intervals; then every write and every upload is checked.
 *
 *   npm run build && npx tsx bench/soak.ts [--minutes 30] [--workers 12] [--sample-seconds 30] [--write]
 *
 * One account (limits high enough that nothing is refused), one token, `--workers` closed
 * loops. Each loop picks its next request from MIX: what an integration sends (reads of its
 * own articles, the list, creates, edits, a publish now and then, image uploads) plus readers
 * opening the published articles' public pages.
 *
 * Writes: each loop edits only the articles it created, with `If-Match` set to the ETag of its
 * own last acknowledged write. So the acknowledged writes of one article form a single chain
 * and "the last acknowledged Markdown" is well defined; a 412 would mean a write nobody sent
 * (or one lost) moved the article, and counts as unexpected. Every revision of an article's
 * Markdown carries a marker of its own (`soak-<n>-r<revision>`), because the API returns the
 * converted `html`, never the Markdown: the final check looks for the acknowledged revision's
 * marker in `GET /posts/{id}` and compares the stored Markdown in the database exactly.
 *
 * Uploads: a 640×480 JPEG carrying EXIF (Copyright, Artist), checked before the run; at the end
 * up to 2000 stored files are fetched and must carry no EXIF.
 *
 * Memory: /api/metrics serves the service's own metrics only (no prom-client default process
 * metrics), so RSS is read from /proc/<pid>/status and the V8 heap from
 * bench/support/runtime-probe.mjs, loaded into the service with NODE_OPTIONS and asked with
 * SIGUSR2 at each sample. Levelling-off compares the maxima of the two halves after a warm-up
 * (5 min, or a third of a run shorter than 15 min).
 *
 * Prints a Markdown report; `--write` also saves it as bench/results/soak-<time>.md (ignored by
 * git). Exits 1 when a check fails (a 5xx, a transport error, an unexpected status, a lost write,
 * EXIF kept); the memory verdict is stated, not enforced.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import { cli, ROOT } from '../tests/support/service';
import { runBench, startBenchService } from './support/bench-service';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    workers: { type: 'string', default: '12' },
    'sample-seconds': { type: 'string', default: '30' },
    write: { type: 'boolean', default: false },
  },
});
const DURATION_MS = Number(values.minutes) * 60_000;
const WORKERS = Number(values.workers);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
if (!(DURATION_MS > 0 && WORKERS >= 1 && SAMPLE_MS > 0)) {
  throw new Error('--minutes, --workers and --sample-seconds must be positive numbers');
}

/** Memory before this is start-up and caches filling up, not a trend. */
const WARM_UP_MS = Math.min(5 * 60_000, DURATION_MS / 3);
/** A second-half maximum more than this above the first half's is growth. */
const GROWTH_TOLERANCE = 0.05;
const EXIF_CHECKS_MAX = 2000;
const REQUEST_TIMEOUT_MS = 60_000;
const API = '/api/v1/author';
const PROBE = path.join(ROOT, 'bench/support/runtime-probe.mjs');
const MB = 2 ** 20;

/** Every request the soak sends, with the one status it expects. */
const ROUTES = {
  me: { name: 'GET /me', expect: 200 },
  read: { name: 'GET /posts/{id}', expect: 200 },
  list: { name: 'GET /posts?limit=20', expect: 200 },
  create: { name: 'POST /posts', expect: 201 },
  patch: { name: 'PATCH /posts/{id}', expect: 200 },
  publish: { name: 'POST /posts/{id}/publish', expect: 200 },
  upload: { name: 'POST /media', expect: 200 },
  page: { name: 'GET /<slug>-<public_id>', expect: 200 },
  checkRead: { name: 'GET /posts/{id} (final check)', expect: 200 },
  checkFile: { name: 'GET /api/media/{uuid} (final check)', expect: 200 },
} as const;
type Route = keyof typeof ROUTES;
type LoadStep = Exclude<Route, 'checkRead' | 'checkFile'>;

/** Share of each step in a loop's requests, in percent. */
const MIX: Record<LoadStep, number> = {
  me: 5,
  read: 25,
  list: 10,
  create: 5,
  patch: 20,
  publish: 4,
  upload: 6,
  page: 25,
};

function pickStep(): LoadStep {
  const entries = Object.entries(MIX) as [LoadStep, number][];
  let r = Math.random() * entries.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [step, weight] of entries) if ((r -= weight) < 0) return step;
  return 'me';
}

const pick = <T>(items: T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

const marker = (n: number, revision: number) => `soak-${n}-r${revision}`;

/** A small article: a heading, a marker naming the revision, a list with a link. */
function markdownOf(n: number, revision: number): string {
  const filler = 'Each edit changes the length of this paragraph a little. '.repeat(revision % 7);
  return `## Notes ${n}, revision ${revision}

Revision marker \`${marker(n, revision)}\`. ${filler}

- the first point of revision ${revision}
- a second point
- [a link](https://example.com/soak/${n}/${revision})
`;
}

interface Article {
  id: string;
  n: number;
  canonicalPath: string;
  /** ETag of the last acknowledged write; null when unknown (after a write whose outcome is unknown). */
  etag: string | null;
  ackedRevision: number;
  ackedMarkdown: string;
  /** Revisions sent whose answer never came (transport error, 5xx): they may have been applied. */
  unsureRevisions: number[];
  nextRevision: number;
  published: boolean;
}

interface Answer {
  status: number;
  etag: string | null;
  bytes: Buffer;
}

interface RouteStats {
  statuses: Map<number, number>;
  transportErrors: number;
  latenciesMs: number[];
}

interface Sample {
  seconds: number;
  rssMB: number;
  heapUsedMB: number;
  heapTotalMB: number;
  requests: number;
  rps: number | null;
}

/** The load: the requests, what they created, and the count of every answer by route. */
class Soak {
  readonly articles: Article[] = [];
  readonly published: Article[] = [];
  readonly uploads: string[] = [];
  readonly stats = new Map<Route, RouteStats>();
  /** Requests of the load answered so far (the final checks are not counted). */
  requests = 0;
  private serial = 0;
  readonly auth: Record<string, string>;
  private readonly json: Record<string, string>;

  constructor(
    private readonly baseUrl: string,
    token: string,
    private readonly jpeg: Buffer,
  ) {
    this.auth = { authorization: `Bearer ${token}` };
    this.json = { ...this.auth, 'content-type': 'application/json' };
  }

  async send(route: Route, urlPath: string, init: RequestInit = {}): Promise<Answer | null> {
    let stats = this.stats.get(route);
    if (!stats) this.stats.set(route, (stats = { statuses: new Map(), transportErrors: 0, latenciesMs: [] }));
    const started = performance.now();
    try {
      const res = await fetch(this.baseUrl + urlPath, {
        ...init,
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      stats.latenciesMs.push(performance.now() - started);
      stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
      return { status: res.status, etag: res.headers.get('etag'), bytes };
    } catch {
      stats.transportErrors++;
      return null;
    } finally {
      if (route !== 'checkRead' && route !== 'checkFile') this.requests++;
    }
  }

  /** One closed loop until the deadline; `own` holds the articles this loop created (and alone edits). */
  async loop(deadline: number): Promise<void> {
    const own: Article[] = [];
    while (Date.now() < deadline) await this.step(pickStep(), own);
  }

  /** Until there is something to read, edit or publish, a step makes it first. */
  private async step(step: LoadStep, own: Article[]): Promise<unknown> {
    const mine = pick(own);
    const any = pick(this.articles);
    const readable = pick(this.published);
    switch (step) {
      case 'me':
        return this.send('me', `${API}/me`, { headers: this.auth });
      case 'list':
        return this.send('list', `${API}/posts?limit=20`, { headers: this.auth });
      case 'upload':
        return this.upload();
      case 'create':
        return this.create(own);
      case 'read':
        return any ? this.send('read', `${API}/posts/${any.id}`, { headers: this.auth }) : this.create(own);
      case 'page':
        if (readable) return this.send('page', readable.canonicalPath);
        return mine ? this.publish(mine) : this.create(own);
      case 'patch':
        return mine ? this.patch(mine) : this.create(own);
      case 'publish':
        return mine ? this.publish(mine) : this.create(own);
    }
  }

  private async create(own: Article[]): Promise<void> {
    const n = ++this.serial;
    const markdown = markdownOf(n, 0);
    const body = JSON.stringify({ title: `Soak article ${n}`, markdown, tags: ['soak'] });
    const answer = await this.send('create', `${API}/posts`, { method: 'POST', headers: this.json, body });
    // A create without an answer may have stored an article nobody knows of: it is counted, not followed.
    if (answer?.status !== ROUTES.create.expect) return;
    const post = JSON.parse(answer.bytes.toString()) as { id: string; canonical_path: string };
    const article: Article = {
      id: post.id,
      n,
      canonicalPath: post.canonical_path,
      etag: answer.etag,
      ackedRevision: 0,
      ackedMarkdown: markdown,
      unsureRevisions: [],
      nextRevision: 1,
      published: false,
    };
    own.push(article);
    this.articles.push(article);
  }

  private async patch(article: Article): Promise<void> {
    const etag = article.etag ?? (await this.refreshEtag(article));
    if (!etag) return;
    const revision = article.nextRevision++;
    const markdown = markdownOf(article.n, revision);
    const answer = await this.send('patch', `${API}/posts/${article.id}`, {
      method: 'PATCH',
      headers: { ...this.json, 'if-match': etag },
      body: JSON.stringify({ markdown }),
    });
    if (this.settle(article, 'patch', answer)) {
      article.ackedRevision = revision;
      article.ackedMarkdown = markdown;
    } else if (!answer || answer.status >= 500) {
      article.unsureRevisions.push(revision);
    }
  }

  private async publish(article: Article): Promise<void> {
    const etag = article.etag ?? (await this.refreshEtag(article));
    if (!etag) return;
    const answer = await this.send('publish', `${API}/posts/${article.id}/publish`, {
      method: 'POST',
      headers: { ...this.auth, 'if-match': etag },
    });
    if (this.settle(article, 'publish', answer) && !article.published) {
      article.published = true;
      this.published.push(article);
    }
  }

  /** Keeps the tag of an acknowledged write; after any other answer the tag is read again before the next write. */
  private settle(article: Article, route: Route, answer: Answer | null): boolean {
    const acknowledged = answer?.status === ROUTES[route].expect;
    article.etag = acknowledged ? answer.etag : null;
    return acknowledged;
  }

  private async refreshEtag(article: Article): Promise<string | null> {
    const answer = await this.send('read', `${API}/posts/${article.id}`, { headers: this.auth });
    if (answer?.status === ROUTES.read.expect) article.etag = answer.etag;
    return article.etag;
  }

  private async upload(): Promise<void> {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(this.jpeg)], { type: 'image/jpeg' }), 'soak.jpg');
    const answer = await this.send('upload', `${API}/media`, { method: 'POST', headers: this.auth, body: form });
    if (answer?.status === ROUTES.upload.expect)
      this.uploads.push((JSON.parse(answer.bytes.toString()) as { url: string }).url);
  }
}

/** RSS from /proc, the V8 heap from the runtime probe inside the service (one SIGUSR2 per read). */
class MemoryProbe {
  constructor(
    private readonly pid: number,
    private readonly file: string,
  ) {}

  async read(): Promise<Pick<Sample, 'rssMB' | 'heapUsedMB' | 'heapTotalMB'>> {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const rssMB = (Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024) / MB;
    const before = existsSync(this.file) ? statSync(this.file).mtimeMs : 0;
    process.kill(this.pid, 'SIGUSR2');
    for (let i = 0; i < 500; i++) {
      if (existsSync(this.file) && statSync(this.file).mtimeMs !== before) {
        const report = JSON.parse(readFileSync(this.file, 'utf8')) as { heapUsedBytes: number; heapTotalBytes: number };
        rmSync(this.file);
        return { rssMB, heapUsedMB: report.heapUsedBytes / MB, heapTotalMB: report.heapTotalBytes / MB };
      }
      await sleep(10);
    }
    throw new Error('the runtime probe in the service did not answer SIGUSR2');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples memory at every interval until the end of the load (and once at its end). */
async function sampleUntil(probe: MemoryProbe, soak: Soak, started: number, samples: Sample[]): Promise<void> {
  for (let k = 1; ; k++) {
    const atMs = Math.min(k * SAMPLE_MS, DURATION_MS);
    await sleep(started + atMs - Date.now());
    const seconds = (Date.now() - started) / 1000;
    const previous = samples.at(-1)!;
    const requests = soak.requests;
    const sample = {
      seconds,
      ...(await probe.read()),
      requests,
      rps: (requests - previous.requests) / (seconds - previous.seconds),
    };
    samples.push(sample);
    console.error(
      `[${(seconds / 60).toFixed(1)} min] RSS ${sample.rssMB.toFixed(0)} MB, heap ${sample.heapUsedMB.toFixed(0)}/${sample.heapTotalMB.toFixed(0)} MB, ${sample.rps.toFixed(0)} req/s`,
    );
    if (atMs >= DURATION_MS) return;
  }
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function inPool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

interface WriteCheck {
  /** Articles whose html (API) or markdown (database) is neither the acknowledged revision nor an unacknowledged later one. */
  lostApi: string[];
  lostDb: string[];
  /** Articles showing a revision whose write got no answer (it was applied after all): not lost. */
  appliedUnacked: number;
  unreadable: number;
}

/** Every created article must show the last Markdown acknowledged with a 2xx: its html through the API, its markdown in the database. */
async function checkWrites(soak: Soak, databaseUrl: string): Promise<WriteCheck> {
  const check: WriteCheck = { lostApi: [], lostDb: [], appliedUnacked: 0, unreadable: 0 };
  const unackedCounted = new Set<string>();
  const countUnacked = (article: Article) => {
    if (!unackedCounted.has(article.id)) check.appliedUnacked++;
    unackedCounted.add(article.id);
  };
  await inPool(soak.articles, WORKERS, async (article) => {
    const answer = await soak.send('checkRead', `${API}/posts/${article.id}`, { headers: soak.auth });
    if (answer?.status !== ROUTES.checkRead.expect) return void check.unreadable++;
    const { html } = JSON.parse(answer.bytes.toString()) as { html: string };
    const shows = (revision: number) => html.includes(`<code>${marker(article.n, revision)}</code>`);
    if (shows(article.ackedRevision)) return;
    if (article.unsureRevisions.some(shows)) countUnacked(article);
    else check.lostApi.push(article.id);
  });

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; markdown: string }>(
      'SELECT id::text AS id, markdown FROM posts WHERE id = ANY($1::uuid[])',
      [soak.articles.map((a) => a.id)],
    );
    const stored = new Map(rows.map((row) => [row.id, row.markdown]));
    for (const article of soak.articles) {
      const markdown = stored.get(article.id);
      if (markdown === article.ackedMarkdown) continue;
      if (article.unsureRevisions.some((revision) => markdown === markdownOf(article.n, revision)))
        countUnacked(article);
      else check.lostDb.push(article.id);
    }
  } finally {
    await client.end();
  }
  return check;
}

interface ExifCheck {
  checked: number;
  withExif: string[];
  unreadable: number;
}

/** Stored files must carry no EXIF: up to EXIF_CHECKS_MAX of them, spread over the run. */
async function checkExif(soak: Soak): Promise<ExifCheck> {
  const step = Math.max(1, soak.uploads.length / EXIF_CHECKS_MAX);
  const urls = Array.from(
    { length: Math.min(EXIF_CHECKS_MAX, soak.uploads.length) },
    (_, i) => soak.uploads[Math.floor(i * step)]!,
  );
  const check: ExifCheck = { checked: urls.length, withExif: [], unreadable: 0 };
  await inPool(urls, WORKERS, async (url) => {
    const answer = await soak.send('checkFile', url);
    if (answer?.status !== ROUTES.checkFile.expect) return void check.unreadable++;
    try {
      if ((await sharp(answer.bytes).metadata()).exif !== undefined) check.withExif.push(url);
    } catch {
      check.unreadable++;
    }
  });
  return check;
}

/** A 640×480 JPEG carrying EXIF (what phones and cameras send), checked before the run. */
async function jpegWithExif(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a7bd5' } })
    .jpeg({ quality: 85 })
    .withExif({ IFD0: { Copyright: 'soak', Artist: 'someone' } })
    .toBuffer();
  const exif = (await sharp(jpeg).metadata()).exif;
  if (!exif?.toString('latin1').includes('someone')) throw new Error('the test JPEG carries no EXIF');
  return jpeg;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : NaN;
const mb = (n: number) => n.toFixed(0);
const signed = (n: number, digits = 0) => (n >= 0 ? '+' : '') + n.toFixed(digits);
const minutes = (seconds: number) => String(Math.round((seconds / 60) * 100) / 100);

function samplesTable(samples: Sample[]): string[] {
  return [
    '| minute | RSS MB | heap used MB | heap total MB | requests | req/s |',
    '| -----: | -----: | -----------: | ------------: | -------: | ----: |',
    ...samples.map(
      (s) =>
        `| ${(s.seconds / 60).toFixed(2)} | ${mb(s.rssMB)} | ${mb(s.heapUsedMB)} | ${mb(s.heapTotalMB)} | ${s.requests} | ${s.rps === null ? '–' : s.rps.toFixed(0)} |`,
    ),
  ];
}

/** Does memory level off? Maxima of the two halves after the warm-up, and the RSS trend. */
function levelling(samples: Sample[]): { lines: string[]; levelled: boolean | null } {
  const after = samples.filter((s) => s.seconds * 1000 >= WARM_UP_MS);
  const warmUp = `${minutes(WARM_UP_MS / 1000)} min`;
  const shortened = WARM_UP_MS < 5 * 60_000 ? ' (shortened: the run is under 15 min, so this is indicative only)' : '';
  if (after.length < 4) {
    return {
      lines: [`Too few samples after the ${warmUp} warm-up to judge (${after.length}, need 4).`],
      levelled: null,
    };
  }
  const from = after[0]!.seconds;
  const to = after.at(-1)!.seconds;
  const mid = (from + to) / 2;
  const halves = [after.filter((s) => s.seconds < mid), after.filter((s) => s.seconds >= mid)] as const;
  const lines = [
    `After a ${warmUp} warm-up${shortened}; first half ${minutes(from)}–${minutes(mid)} min, second half ${minutes(mid)}–${minutes(to)} min:`,
    '',
    '|              | max, first half | max, second half | change |',
    '| ------------ | --------------: | ---------------: | -----: |',
  ];
  let levelled = true;
  for (const [label, key] of [
    ['RSS MB', 'rssMB'],
    ['heap used MB', 'heapUsedMB'],
  ] as const) {
    const [first, second] = halves.map((half) => Math.max(...half.map((s) => s[key])));
    const growth = (second! - first!) / first!;
    if (growth > GROWTH_TOLERANCE) levelled = false;
    lines.push(
      `| ${label} | ${mb(first!)} | ${mb(second!)} | ${signed(second! - first!)} (${signed(growth * 100, 1)} %) |`,
    );
  }
  // Least-squares slope of RSS over the samples after the warm-up.
  const meanT = after.reduce((a, s) => a + s.seconds, 0) / after.length;
  const meanR = after.reduce((a, s) => a + s.rssMB, 0) / after.length;
  const slope =
    after.reduce((a, s) => a + (s.seconds - meanT) * (s.rssMB - meanR), 0) /
    after.reduce((a, s) => a + (s.seconds - meanT) ** 2, 0);
  lines.push('', `RSS trend after the warm-up: ${signed(slope * 60, 2)} MB/min (least squares).`, '');
  lines.push(
    levelled
      ? `**Memory levels off**: neither maximum grew by more than ${GROWTH_TOLERANCE * 100} % from the first half to the second.`
      : `**Memory still grows**: a second-half maximum is more than ${GROWTH_TOLERANCE * 100} % above the first half's.`,
  );
  return { lines, levelled };
}

function routesTable(soak: Soak): { lines: string[]; fiveXX: number; transport: number; unexpected: string[] } {
  const lines = [
    '| route | requests | p50 ms | p99 ms | 5xx | transport errors | other unexpected |',
    '| ----- | -------: | -----: | -----: | --: | ---------------: | ---------------- |',
  ];
  let fiveXX = 0;
  let transport = 0;
  const unexpected: string[] = [];
  for (const route of Object.keys(ROUTES) as Route[]) {
    const stats = soak.stats.get(route);
    if (!stats) continue;
    const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
    let requests = stats.transportErrors;
    let routeFiveXX = 0;
    const others: string[] = [];
    for (const [status, count] of stats.statuses) {
      requests += count;
      if (status >= 500) routeFiveXX += count;
      else if (status !== ROUTES[route].expect) others.push(`${status} ×${count}`);
    }
    fiveXX += routeFiveXX;
    transport += stats.transportErrors;
    unexpected.push(...others.map((o) => `${ROUTES[route].name}: ${o}`));
    lines.push(
      `| ${ROUTES[route].name} | ${requests} | ${percentile(sorted, 0.5).toFixed(1)} | ${percentile(sorted, 0.99).toFixed(1)} | ${routeFiveXX} | ${stats.transportErrors} | ${others.join(', ') || '0'} |`,
    );
  }
  return { lines, fiveXX, transport, unexpected };
}

function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main() {
  const jpeg = await jpegWithExif();
  const runStarted = new Date();
  const bench = await startBenchService('publishing-bench-soak-', {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(PROBE).href}`.trim(),
    RUNTIME_PROBE_OUT: path.join(os.tmpdir(), `publishing-soak-probe-${process.pid}.json`),
  });
  const { service, env } = bench;
  try {
    const high = [
      'read_per_min=100000000',
      'write_per_min=100000000',
      'publish_per_min=100000000',
      'media_per_min=100000000',
      'daily_media_bytes=1000000000000',
    ].flatMap((limit) => ['--limit', limit]);
    const account = (await cli(env, ['account', 'create', 'soak', ...high])).json as { token: string };
    const soak = new Soak(service.baseUrl, account.token, jpeg);
    const probe = new MemoryProbe(service.process.pid!, service.env.RUNTIME_PROBE_OUT!);

    const samples: Sample[] = [{ seconds: 0, ...(await probe.read()), requests: 0, rps: null }];
    console.error(`soak: ${minutes(DURATION_MS / 1000)} min, ${WORKERS} workers, a sample every ${SAMPLE_MS / 1000} s`);
    const started = Date.now();
    await Promise.all([
      sampleUntil(probe, soak, started, samples),
      ...Array.from({ length: WORKERS }, () => soak.loop(started + DURATION_MS)),
    ]);
    const loadSeconds = (Date.now() - started) / 1000;

    console.error(
      `checking ${soak.articles.length} articles and up to ${EXIF_CHECKS_MAX} of ${soak.uploads.length} uploads…`,
    );
    const writes = await checkWrites(soak, bench.db.url);
    const exif = await checkExif(soak);
    const routes = routesTable(soak);
    const memory = levelling(samples);

    const failures = [
      routes.fiveXX && `${routes.fiveXX} answers 5xx`,
      routes.transport && `${routes.transport} transport errors`,
      routes.unexpected.length && `unexpected statuses (${routes.unexpected.join('; ')})`,
      writes.lostApi.length && `${writes.lostApi.length} lost writes seen through the API`,
      writes.lostDb.length && `${writes.lostDb.length} lost writes in the database`,
      writes.unreadable && `${writes.unreadable} articles unreadable at the end`,
      exif.withExif.length && `${exif.withExif.length} stored files keep EXIF`,
      exif.unreadable && `${exif.unreadable} stored files unreadable`,
    ].filter((f): f is string => typeof f === 'string');

    const report = [
      `# Memory soak, ${runStarted.toISOString()}`,
      '',
      `Commit ${commitOf()}, Node ${process.version}; ${minutes(DURATION_MS / 1000)} min of load (${loadSeconds.toFixed(0)} s measured), ` +
        `${WORKERS} closed loops on one token, a sample every ${SAMPLE_MS / 1000} s. ` +
        `Mix (%): ${Object.entries(MIX)
          .map(([step, weight]) => `${ROUTES[step as LoadStep].name} ${weight}`)
          .join(', ')}.`,
      '',
      `${soak.requests} requests (${(soak.requests / loadSeconds).toFixed(0)} req/s); ${soak.articles.length} articles created, ` +
        `${soak.published.length} published, ${soak.uploads.length} images uploaded.`,
      '',
      '## Memory of the service process',
      '',
      ...samplesTable(samples),
      '',
      '## Levelling-off',
      '',
      ...memory.lines,
      '',
      '## Requests',
      '',
      ...routes.lines,
      '',
      '## Checks',
      '',
      `- 5xx: ${routes.fiveXX}; transport errors: ${routes.transport}; other unexpected statuses: ${routes.unexpected.length ? routes.unexpected.join('; ') : 0}.`,
      `- Lost writes: ${writes.lostApi.length} through the API (html of GET /posts/{id}), ${writes.lostDb.length} in the database (markdown, exact), ` +
        `of ${soak.articles.length} articles; ${writes.unreadable} unreadable; ${writes.appliedUnacked} show a write that got no answer (applied after all: not lost).` +
        (writes.lostApi.length || writes.lostDb.length
          ? ` First: ${[...writes.lostApi, ...writes.lostDb].slice(0, 5).join(', ')}.`
          : ''),
      `- EXIF in stored files: ${exif.withExif.length} of ${exif.checked} checked (${soak.uploads.length} uploaded); ${exif.unreadable} unreadable.` +
        (exif.withExif.length ? ` First: ${exif.withExif.slice(0, 5).join(', ')}.` : ''),
      '',
      failures.length ? `**FAILED**: ${failures.join('; ')}.` : '**All checks passed.**',
    ].join('\n');

    console.log(report);
    if (values.write) {
      const file = path.join(ROOT, 'bench/results', `soak-${runStarted.toISOString().replace(/:/g, '-')}.md`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${report}\n`);
      console.error(`written to ${path.relative(ROOT, file)}`);
    }
    if (failures.length) process.exitCode = 1;
  } finally {
    await bench.stop();
  }
}

runBench(main);
