/**
 * The layout of deploy/, started from the shipped files (tests/deployment/layout.ts): hitch and
 * Varnish on its three sockets in front of two instances started as the systemd unit starts
 * them, PgBouncer in transaction pooling, one Debian PostgreSQL 15, one media directory, one
 * SESSION_SECRET. What a reader sees through the cache after each kind of change, how readers
 * are told apart behind a TLS terminator, who may PURGE, and what clients see while instances
 * restart or die and while PostgreSQL or PgBouncer restart. Prints the overrides list and the
 * figures the README quotes (purge latencies, failure counts, hit ratios).
 */
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from '../support/service';
import { createAccountFixture } from '../support/shared-database';
import {
  connectionsOf,
  dropInCommand,
  Layout,
  missingPackages,
  overridesReport,
  parseEnvironmentFile,
  parseProcfile,
  parseUnit,
  PUBLIC_HOST,
  readShipped,
  SHIPPED,
  sleep,
  systemdVerify,
  through,
  unitCommand,
  vclBackendPorts,
  waitFor,
  type Reply,
  type Via,
} from './layout';

let layout: Layout;
let cachedAt = 0;
/** A page cached at the start, left alone until the stale check (it must be past s-maxage). */
let longCached = { path: '', title: '', cacheControl: '' };
const figures: string[] = [];

/**
 * An account as `account create` makes it, through the instances' PgBouncer: the service function
 * the CLI calls, without a CLI process (a second of CPU each, a dozen a run). The CLI itself runs
 * on this layout in the moderation test.
 */
async function account(opts: { moderated?: boolean } = {}) {
  const handle = `deploy-${Math.random().toString(36).slice(2, 10)}`;
  const limits = { read_per_min: 100000, write_per_min: 100000, publish_per_min: 100000, media_per_min: 100000 };
  return createAccountFixture(
    { handle, moderated: opts.moderated, limits },
    layout.cliEnv().DATABASE_URL,
    'transaction',
  );
}

const api = (method: string, path: string, token: string, json?: unknown) =>
  through(layout, 'console', method, `/api/v1/author${path}`, { token, json });

async function published(token: string, title: string, extra: Record<string, unknown> = {}) {
  const created = await api('POST', '/posts', token, { title, markdown: `Text of ${title}.`, ...extra });
  expect(created.status).toBe(201);
  const post = JSON.parse(created.text) as { id: string };
  const res = await api('POST', `/posts/${post.id}/publish`, token);
  expect(res.status).toBe(200);
  return JSON.parse(res.text) as { id: string; canonical_path: string; status: string };
}

/** A small PNG uploaded through the console host; its public URL. */
async function uploadedImage(token: string): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
    .png()
    .toBuffer();
  const boundary = 'deploy-boundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = await through(layout, 'console', 'POST', '/api/v1/author/media', {
    token,
    body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  expect(uploaded.status, uploaded.text).toBe(200);
  return (JSON.parse(uploaded.text) as { url: string }).url;
}

const page = (path: string, via?: Via, headers?: Record<string, string>) =>
  through(layout, 'public', 'GET', path, { via, headers });
const cacheStatus = (reply: Reply) => String(reply.headers['x-cache'] ?? '');

/** Milliseconds until the proxy's answer for `path` satisfies `done` (polled every 10 ms). */
async function msUntil(path: string, done: (reply: Reply) => boolean, limitMs = 5000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const reply = await page(path);
    if (done(reply)) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`${path}: still ${reply.status} after ${limitMs} ms`);
    await sleep(10);
  }
}

/**
 * Requests `path` until the proxy answers it from its cache. The purges of the change just made
 * go out in the background, so the first copy stored may be purged a moment later.
 */
async function cachedHit(path: string, via?: Via): Promise<Reply> {
  let reply = await page(path, via);
  await waitFor(
    async () => {
      reply = await page(path, via);
      return cacheStatus(reply) === 'HIT';
    },
    5000,
    `${path} cached (${reply.status} ${cacheStatus(reply)})`,
  );
  expect(reply.status, reply.text).toBe(200);
  return reply;
}

/**
 * Runs the CLI as an operator does; once it printed its result (the change is committed), the
 * milliseconds until the proxy's answer for `path` satisfies `done`. The CLI must succeed.
 */
async function cliThenMsUntil(args: string[], path: string, done: (reply: Reply) => boolean): Promise<number> {
  const child = spawn(process.execPath, [`${ROOT}/dist/cli.mjs`, ...args], {
    env: layout.cliEnv() as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const ms = await msUntil(path, done, 5000);
  expect(await exited).toBe(0);
  return ms;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

beforeAll(async () => {
  const missing = missingPackages();
  if (missing.length > 0)
    throw new Error(
      `missing Debian packages ${missing.join(', ')}: run \`node scripts/system-packages.mjs\` (npm test runs it first)`,
    );
  layout = new Layout();
  await layout.start();
  const author = await account();
  const post = await published(author.token, 'Kept in the cache');
  // Past the publish's second purge (2 s later, see server/runtime/cache-purge.ts), which would empty it.
  await sleep(2500);
  const hit = await cachedHit(post.canonical_path);
  cachedAt = Date.now();
  longCached = {
    path: post.canonical_path,
    title: 'Kept in the cache',
    cacheControl: String(hit.headers['cache-control']),
  };
}, 300_000);

afterAll(async () => {
  console.log(
    [
      'deployment overrides (the test’s only changes to the shipped files of deploy/):',
      ...overridesReport(),
      ...(figures.length > 0 ? ['deployment figures:', ...figures] : []),
    ].join('\n  '),
  );
  await layout?.stop();
}, 120_000);

describe('the layout is deploy/ as shipped', () => {
  it('the systemd units pass `systemd-analyze verify` (a parser check where it is missing)', () => {
    const verified = systemdVerify(layout.dir);
    if (verified) {
      expect(verified.problems).toEqual([]);
      expect(verified.checked).toContain('publishing@3001.service');
      figures.push(`systemd-analyze verify: ${verified.checked.join(', ')}: no problem`);
    }
    // The parser reads both whatever the machine has (a malformed line throws).
    const known: Record<string, string[]> = {
      Unit: ['Description', 'After', 'Wants', 'Requires', 'Documentation'],
      Service: [
        'Type',
        'User',
        'Group',
        'WorkingDirectory',
        'EnvironmentFile',
        'Environment',
        'ExecStart',
        'KillSignal',
        'TimeoutStopSec',
        'Restart',
        'RestartSec',
      ],
      Install: ['WantedBy'],
    };
    for (const file of [SHIPPED.unit, SHIPPED.varnishDropIn] as const) {
      for (const [section, keys] of parseUnit(readShipped(file))) {
        expect(Object.keys(known), `${file}: [${section}]`).toContain(section);
        for (const key of keys.keys()) expect(known[section], `${file}: ${key}=`).toContain(key);
      }
    }
    expect(unitCommand('3001').command[0]).toMatch(/^\//);
    expect(dropInCommand()[0]).toBe('/usr/sbin/varnishd');
  });

  it('the Procfile starts the unit’s command with the unit’s per-instance environment, on the VCL’s backend ports', () => {
    const procfile = parseProcfile(readShipped(SHIPPED.procfile));
    const vclPorts = Object.values(vclBackendPorts()).sort();
    expect(procfile.map((p) => p.environment.PORT).sort()).toEqual(vclPorts);
    for (const proc of procfile) {
      const unit = unitCommand(proc.environment.PORT!);
      expect(proc.environment, proc.name).toEqual(unit.environment);
      const [binary, ...args] = unit.command;
      expect(proc.command, proc.name).toEqual([binary!.split('/').pop(), ...args]);
    }
    // The unit's shared settings are the env example's (its EnvironmentFile is where that file goes).
    expect(unitCommand('3001').environmentFile).toBe('/etc/publishing/publishing.env');
    const env = parseEnvironmentFile(readShipped(SHIPPED.env));
    expect(new URL(env.DATABASE_URL!).port).toBe('6432');
    expect(new URL(env.CACHE_PURGE_URLS!).port).toBe(/-a purge=[^:]*:(\d+)/.exec(dropInCommand().join(' '))![1]);
  });

  it('the instances reach PostgreSQL only through PgBouncer', async () => {
    const { port: bouncer } = layout.pgbouncer;
    const { port: postgres } = layout.postgres;
    // Some traffic, so both instances hold connections.
    const author = await account();
    for (let i = 0; i < 4; i++) expect((await api('GET', '/me', author.token)).status).toBe(200);
    const clients = layout.pgbouncer
      .admin('SHOW CLIENTS')
      .filter((c) => c.user === 'publishing' && c.database === 'publishing');
    const clientPorts = new Set(clients.map((c) => Number(c.port)));
    for (const [i, instance] of layout.instances.entries()) {
      const connections = connectionsOf(instance!.process.pid!);
      expect(
        connections.filter((c) => c.remote === postgres),
        `instance ${i + 1} to PostgreSQL`,
      ).toEqual([]);
      const toBouncer = connections.filter((c) => c.remote === bouncer);
      expect(toBouncer.length, `instance ${i + 1} to PgBouncer`).toBeGreaterThan(0);
      // PgBouncer lists the instance's own connections among its clients.
      expect(
        toBouncer.some((c) => clientPorts.has(c.local)),
        `instance ${i + 1} in SHOW CLIENTS`,
      ).toBe(true);
    }
    // Every server connection of the role in PostgreSQL is one PgBouncer opened.
    const admin = layout.postgres.superuser();
    await admin.connect();
    const backends = await admin.query<{ client_port: number }>(
      `SELECT client_port FROM pg_stat_activity WHERE usename = 'publishing' AND client_port IS NOT NULL`,
    );
    await admin.end();
    const fromBouncer = new Set(
      connectionsOf(layout.pgbouncer.process!.pid!)
        .filter((c) => c.remote === postgres)
        .map((c) => c.local),
    );
    expect(backends.rows.length).toBeGreaterThan(0);
    for (const row of backends.rows)
      expect(fromBouncer, `backend from port ${row.client_port}`).toContain(row.client_port);
    figures.push(
      `through PgBouncer: ${clients.length} client connections of the instances in SHOW CLIENTS, ` +
        `${backends.rows.length} server connections in pg_stat_activity, all PgBouncer's; none from an instance`,
    );
  });
});

describe('readers through hitch and Varnish', () => {
  it('are counted as browsers send their beacons after a page from the cache: one per address and agent, by the PROXY address, X-Forwarded-For ignored, 20 per address at most', async () => {
    const author = await account();
    const post = await published(author.token, 'Counted through the proxy');
    const publicId = post.canonical_path.slice(-10);
    const pageUrl = `https://${PUBLIC_HOST}${post.canonical_path}`;
    // Past the publish's second purge, then cached through hitch.
    await sleep(2500);
    await cachedHit(post.canonical_path, { socket: 'hitch' });
    const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';
    /** A reader: the page from the cache, then the open beacon as Chromium requests the image. */
    const read = async (via: Via, userAgent: string, extra: Record<string, string> = {}) => {
      const shown = await page(post.canonical_path, via, { 'user-agent': userAgent, ...extra });
      expect(shown.status).toBe(200);
      expect(cacheStatus(shown)).toBe('HIT');
      expect(shown.text).toContain(`/api/reader/${publicId}/open.gif`);
      const beacon = await through(layout, 'public', 'GET', `/api/reader/${publicId}/open.gif`, {
        via,
        headers: {
          'user-agent': userAgent,
          referer: pageUrl,
          accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
          'sec-fetch-dest': 'image',
          'sec-fetch-mode': 'no-cors',
          'sec-fetch-site': 'same-origin',
          ...extra,
        },
      });
      expect(beacon.status).toBe(200);
      expect(beacon.headers['content-type']).toBe('image/gif');
      expect(beacon.headers['cache-control']).toBe('no-store');
      expect(cacheStatus(beacon)).not.toBe('HIT');
    };
    const tls = (from: string, proxyVersion: 1 | 2 = 2): Via => ({ socket: 'tls', from, proxyVersion });
    // Through hitch: one reader (hitch's PROXY header names the client, 127.0.0.1 here).
    await read({ socket: 'hitch' }, browser);
    // Two more addresses, as hitch would name them (PROXY v2 and v1): two more readers.
    await read(tls('203.0.113.10', 2), browser);
    await read(tls('203.0.113.11', 1), browser);
    // A forged X-Forwarded-For changes nothing: the same address and agent count no second time…
    await read(tls('203.0.113.10'), browser, { 'x-forwarded-for': '198.51.100.7' });
    await read({ socket: 'http' }, browser, { 'x-forwarded-for': '198.51.100.8' });
    // …and a new address naming a counted one is still its own reader: one more.
    await read(tls('203.0.113.13'), browser, { 'x-forwarded-for': '203.0.113.10' });
    // 25 agents from one address: READERS_PER_ADDRESS (20) readers, not 25.
    for (let n = 0; n < 25; n++) await read(tls('203.0.113.12'), `${browser} Reader/${n}`);
    const expected = 1 + 2 + 0 + 1 + 20;
    let opens = -1;
    await waitFor(
      async () => {
        const reply = await api('GET', `/posts/${post.id}`, author.token);
        opens = (JSON.parse(reply.text) as { open_count: number }).open_count;
        return opens >= expected;
      },
      20_000,
      `the beacons flushed (${opens} opens)`,
    );
    await sleep(5500); // one more flush interval: nothing else arrives
    const reply = await api('GET', `/posts/${post.id}`, author.token);
    expect((JSON.parse(reply.text) as { open_count: number }).open_count).toBe(expected);
    figures.push(
      `readers through hitch/PROXY: 31 page views from the cache and their beacons → ${expected} opens ` +
        `(1 via hitch, 3 PROXY addresses, forged X-Forwarded-For ignored twice, 25 agents of one address capped at 20)`,
    );
  });
});

describe('who may PURGE', () => {
  it('PURGE is refused (405) on the http and tls sockets even from 127.0.0.1, through hitch too, and taken on the purge socket only', async () => {
    const author = await account();
    const post = await published(author.token, 'Purged only from inside');
    await sleep(2500);
    await cachedHit(post.canonical_path);
    const refusedOn: Via[] = [
      { socket: 'http' },
      { socket: 'hitch' },
      { socket: 'tls', from: '127.0.0.1', proxyVersion: 2 },
      { socket: 'tls', from: '127.0.0.1', proxyVersion: 1 },
    ];
    for (const via of refusedOn) {
      const purge = await through(layout, 'public', 'PURGE', post.canonical_path, { via });
      expect(purge.status, JSON.stringify(via)).toBe(405);
      // Still cached: nothing was purged.
      expect(cacheStatus(await page(post.canonical_path)), JSON.stringify(via)).toBe('HIT');
    }
    // The purge socket serves nothing else.
    expect((await page(post.canonical_path, { socket: 'purge' })).status).toBe(404);
    const purge = await through(layout, 'public', 'PURGE', post.canonical_path, { via: { socket: 'purge' } });
    expect(purge.status).toBe(200);
    const after = await page(post.canonical_path);
    expect(after.status).toBe(200);
    expect(cacheStatus(after)).toBe('MISS');
  });
});

describe('one cache key per public path', () => {
  it('a page or media path in upper case is the canonical key (HIT); a %-escaped one is passed (never HIT) and answered 308 to the canonical path', async () => {
    const author = await account();
    const image = await uploadedImage(author.token);
    const post = await published(author.token, 'One key per page', { markdown: `![a](${image})` });
    await sleep(2500);
    for (const canonical of [post.canonical_path, image]) {
      const hit = await cachedHit(canonical);
      const upper = await page(canonical.toUpperCase());
      expect(upper.status, canonical).toBe(200);
      expect(cacheStatus(upper), canonical).toBe('HIT');
      expect(upper.text, canonical).toBe(hit.text);
      // The first letter after the last slash, percent-escaped: the same path spelled otherwise.
      const at = canonical.lastIndexOf('/') + 1;
      const escaped = `${canonical.slice(0, at)}%${canonical.charCodeAt(at).toString(16).toUpperCase()}${canonical.slice(at + 1)}`;
      for (let n = 0; n < 3; n++) {
        const reply = await page(escaped);
        expect(reply.status, escaped).toBe(308);
        expect(reply.headers.location, escaped).toBe(canonical);
        expect(cacheStatus(reply), escaped).toBe('MISS');
      }
    }
  });
});

describe('the cache forgets what changed, at once', () => {
  it('publish → cached; unpublish → 404 within 1 s; republish → fresh within 1 s (20 tries)', async () => {
    const author = await account();
    const post = await published(author.token, 'Try 0');
    const hit = await cachedHit(post.canonical_path);
    expect(hit.headers['surrogate-key']).toMatch(/^article-[0-9a-z]{10}$/);
    const toGone: number[] = [];
    const toFresh: number[] = [];
    for (let n = 1; n <= 20; n++) {
      expect((await api('POST', `/posts/${post.id}/unpublish`, author.token)).status).toBe(204);
      toGone.push(await msUntil(post.canonical_path, (r) => r.status === 404));
      // The 404 is cached now (s-maxage=10); the publish must purge it. (The first 404 may be
      // fetched before the unpublish's purge, sent once the change is committed, reaches
      // Varnish: the copy stored then is purged, and the next one stays.)
      await waitFor(async () => cacheStatus(await page(post.canonical_path)) === 'HIT', 3000, 'the 404 cached');
      expect((await api('PATCH', `/posts/${post.id}`, author.token, { title: `Try ${n}` })).status).toBe(200);
      expect((await api('POST', `/posts/${post.id}/publish`, author.token)).status).toBe(200);
      toFresh.push(await msUntil(post.canonical_path, (r) => r.status === 200 && r.text.includes(`Try ${n}<`)));
      await cachedHit(post.canonical_path);
    }
    figures.push(
      `unpublish → proxy 404: p50 ${percentile(toGone, 50).toFixed(0)} ms, max ${Math.max(...toGone).toFixed(0)} ms (20 tries)`,
      `publish → proxy fresh: p50 ${percentile(toFresh, 50).toFixed(0)} ms, max ${Math.max(...toFresh).toFixed(0)} ms (20 tries)`,
    );
    expect(Math.max(...toGone)).toBeLessThan(1000);
    expect(Math.max(...toFresh)).toBeLessThan(1000);
  });

  it('a slug change: the old path redirects to the new one, which is fresh', async () => {
    const author = await account();
    const post = await published(author.token, 'Slug before');
    await cachedHit(post.canonical_path);
    expect((await api('PATCH', `/posts/${post.id}`, author.token, { slug: 'slug-after' })).status).toBe(200);
    const republished = JSON.parse((await api('POST', `/posts/${post.id}/publish`, author.token)).text);
    expect(republished.canonical_path).not.toBe(post.canonical_path);
    await msUntil(post.canonical_path, (r) => r.status === 308, 1000);
    const moved = await page(post.canonical_path);
    expect(moved.headers.location).toBe(republished.canonical_path);
    const fresh = await page(republished.canonical_path);
    expect(fresh.status).toBe(200);
    expect(cacheStatus(fresh)).not.toBe('HIT');
  });

  it('delete → 404 within 1 s', async () => {
    const author = await account();
    const post = await published(author.token, 'To be deleted');
    await cachedHit(post.canonical_path);
    expect((await api('DELETE', `/posts/${post.id}`, author.token)).status).toBe(204);
    await msUntil(post.canonical_path, (r) => r.status === 404, 1000);
  });

  it('moderation: an approval shows the new version within 1 s; a rejection leaves the public one', async () => {
    const author = await account({ moderated: true });
    const first = await published(author.token, 'Moderated one');
    expect(first.status).toBe('pending_moderation');
    expect((await cli(layout.cliEnv(), ['moderation', 'approve', first.id])).code).toBe(0);
    await cachedHit(first.canonical_path);

    expect((await api('PATCH', `/posts/${first.id}`, author.token, { title: 'Moderated two' })).status).toBe(200);
    expect((await api('POST', `/posts/${first.id}/publish`, author.token)).status).toBe(200);
    expect((await cachedHit(first.canonical_path)).text).toContain('Moderated one<');
    // From the CLI's answer (printed once the decision is committed) until readers see it.
    const approved = await cliThenMsUntil(['moderation', 'approve', first.id], first.canonical_path, (r) =>
      r.text.includes('Moderated two<'),
    );
    figures.push(`moderation approve (CLI) → proxy fresh: ${approved.toFixed(0)} ms`);
    expect(approved).toBeLessThan(1000);

    await cachedHit(first.canonical_path);
    expect((await api('PATCH', `/posts/${first.id}`, author.token, { title: 'Moderated three' })).status).toBe(200);
    expect((await api('POST', `/posts/${first.id}/publish`, author.token)).status).toBe(200);
    expect((await cli(layout.cliEnv(), ['moderation', 'reject', first.id, '--reason', 'no'])).code).toBe(0);
    const afterReject = await page(first.canonical_path);
    expect(cacheStatus(afterReject)).not.toBe('HIT');
    expect(afterReject.text).toContain('Moderated two<');
  });

  it('account deletion: its pages and its media are gone from the cache', async () => {
    const author = await account();
    const media = { url: await uploadedImage(author.token) };
    const post = await published(author.token, 'Illustrated', { markdown: `![a](${media.url})` });
    await cachedHit(post.canonical_path);
    const file = await cachedHit(media.url);
    expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(file.headers['surrogate-key']).toMatch(/^media-/);

    const gone = await cliThenMsUntil(
      ['account', 'delete', author.handle],
      post.canonical_path,
      (r) => r.status === 404,
    );
    figures.push(`account delete (CLI) → proxy 404: ${gone.toFixed(0)} ms`);
    expect(gone).toBeLessThan(1000);
    await msUntil(media.url, (r) => r.status === 404, 1000);
  });
});

/** One request of the load: what it was, when it started and ended, and how it was answered. */
interface Sample {
  kind: 'page' | 'read' | 'create' | 'edit';
  /** Sequence number of the request (in-flight snapshots name these). */
  seq: number;
  start: number;
  end: number;
  status: number;
  cache: string;
  shaped: boolean;
  text: string;
}

interface LoadStats {
  samples: Sample[];
  /** Acknowledged creates (201): each must be readable afterwards. */
  acknowledged: string[];
  /** Per edited article (one per worker, edited by it alone), its edits in order. */
  edits: Map<string, { subtitle: string; status: number }[]>;
  /** What a read returned afterwards for each edited article. */
  finalSubtitles: Map<string, string | null>;
}

/** What the load offers `during`: the writes in flight now, and marks on its timeline. */
interface LoadControl {
  writesInFlight(): Set<number>;
}

const isFailure = (s: Sample) => s.status === 0 || s.status >= 500;
const isWrite = (s: Sample) => s.kind === 'create' || s.kind === 'edit';

/**
 * Steady mixed load through the proxy while `during` runs: public pages (cached), API reads,
 * creates and edits, `workers` at a time; each worker edits an article of its own, so the last
 * acknowledged edit of each is the one a read must return afterwards. A failure is no answer,
 * or a 5xx.
 *
 * Each worker pauses PACE_MS after each answer: the instances, Varnish and PostgreSQL then use
 * about half the machine instead of all of it (the rest of the suite runs beside this file), and
 * the six workers still send a request every few milliseconds, far closer together than any gap
 * a restart, a kill or an outage opens.
 */
const PACE_MS = 20;

async function underLoad(during: (load: LoadControl) => Promise<void>, workers = 6): Promise<LoadStats> {
  const author = await account();
  const pages: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const post = await published(author.token, `Load ${i}`);
    pages.push(post.canonical_path);
    ids.push(post.id);
  }
  const edited: string[] = [];
  for (let w = 0; w < workers; w++) {
    const created = await api('POST', '/posts', author.token, { title: `Edited by worker ${w}`, markdown: 'Edited.' });
    expect(created.status).toBe(201);
    edited.push((JSON.parse(created.text) as { id: string }).id);
  }
  // Past the publishes' second purge (2 s later), so the pages stay cached during the load.
  await sleep(2500);
  const stats: LoadStats = {
    samples: [],
    acknowledged: [],
    edits: new Map(edited.map((id) => [id, []])),
    finalSubtitles: new Map(),
  };
  const inFlight = new Map<number, Sample['kind']>();
  let seq = 0;
  let running = true;
  const timed = async (kind: Sample['kind'], send: () => Promise<Reply>): Promise<Reply> => {
    const n = seq++;
    inFlight.set(n, kind);
    const start = performance.now();
    const reply = await send();
    inFlight.delete(n);
    stats.samples.push({
      kind,
      seq: n,
      start,
      end: performance.now(),
      status: reply.status,
      cache: cacheStatus(reply),
      shaped: hasErrorShape(reply.text),
      text: reply.text.slice(0, 200),
    });
    return reply;
  };
  const worker = async (w: number) => {
    for (let n = 0; running; n++) {
      const op = (n + w) % 10;
      if (op < 5) {
        await timed('page', () => page(pages[n % pages.length]!));
      } else if (op < 7) {
        await timed('read', () => api('GET', `/posts/${ids[n % ids.length]}`, author.token));
      } else if (op < 9) {
        const reply = await timed('create', () =>
          api('POST', '/posts', author.token, { title: `w${w} n${n}`, markdown: 'Load text.' }),
        );
        if (reply.status === 201) stats.acknowledged.push((JSON.parse(reply.text) as { id: string }).id);
      } else {
        const subtitle = `w${w} n${n}`;
        const reply = await timed('edit', () => api('PATCH', `/posts/${edited[w]}`, author.token, { subtitle }));
        stats.edits.get(edited[w]!)!.push({ subtitle, status: reply.status });
      }
      await sleep(PACE_MS);
    }
  };
  const load = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  await sleep(1000);
  try {
    await during({
      writesInFlight: () =>
        new Set([...inFlight].filter(([, kind]) => kind === 'create' || kind === 'edit').map(([n]) => n)),
    });
    await sleep(1000);
  } finally {
    running = false;
    await load;
  }
  // Every acknowledged write is there.
  await waitFor(async () => (await api('GET', '/me', author.token)).status === 200, 60_000, 'the API');
  for (const id of stats.acknowledged) {
    const reply = await api('GET', `/posts/${id}`, author.token);
    expect(reply.status, `acknowledged article ${id}`).toBe(200);
  }
  for (const id of edited) {
    const reply = await api('GET', `/posts/${id}`, author.token);
    expect(reply.status).toBe(200);
    stats.finalSubtitles.set(id, (JSON.parse(reply.text) as { subtitle: string | null }).subtitle);
  }
  return stats;
}

/**
 * Each edited article reads back as its last acknowledged edit, or as an edit sent after it whose
 * answer was a failure (it may have been committed before its instance died); never older.
 */
function expectEditsKept(stats: LoadStats): number {
  let acknowledged = 0;
  for (const [id, edits] of stats.edits) {
    const last = edits.findLastIndex((e) => e.status === 200);
    acknowledged += edits.filter((e) => e.status === 200).length;
    const allowed = edits.slice(Math.max(0, last)).filter((e, i) => (i === 0 && last >= 0) || e.status !== 200);
    expect(last, `article ${id}: an edit was acknowledged`).toBeGreaterThanOrEqual(0);
    expect(
      allowed.map((e) => e.subtitle),
      `article ${id}: read ${stats.finalSubtitles.get(id)}`,
    ).toContain(stats.finalSubtitles.get(id));
  }
  return acknowledged;
}

function hasErrorShape(text: string): boolean {
  try {
    return typeof (JSON.parse(text) as { error?: unknown }).error === 'string';
  } catch {
    return false;
  }
}

const pages = (stats: LoadStats) => stats.samples.filter((s) => s.kind === 'page');
const hitRatio = (stats: LoadStats) =>
  pages(stats).filter((s) => s.cache === 'HIT').length / Math.max(1, pages(stats).length);
const failures = (stats: LoadStats, kind: 'reads' | 'writes') =>
  stats.samples.filter((s) => isFailure(s) && (kind === 'writes') === isWrite(s));
const byStatus = (stats: LoadStats, samples = stats.samples) => {
  const counts = new Map<string, number>();
  for (const s of samples) counts.set(`${s.kind} ${s.status}`, (counts.get(`${s.kind} ${s.status}`) ?? 0) + 1);
  return [...counts.entries()]
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
};
const firstFailures = (samples: Sample[]) =>
  samples
    .slice(0, 5)
    .map((s) => `${s.kind} ${s.status} ${s.text}`)
    .join('\n');

const summary = (stats: LoadStats) =>
  `${stats.samples.length} requests, ${failures(stats, 'reads').length} failed reads, ` +
  `${failures(stats, 'writes').length} failed writes, ${stats.acknowledged.length} acknowledged creates all present, ` +
  `hit ratio ${(100 * hitRatio(stats)).toFixed(1)}% of ${pages(stats).length} page GETs`;

/** The rolling restart of the README: stop (SIGTERM drains first), start, wait until it is in rotation. */
async function restart(i: 0 | 1) {
  await layout.stopInstance(i);
  await layout.startInstance(i);
  await layout.untilInRotation();
}

/** Until every running instance answers its health check 200 again (by itself: nothing is restarted). */
async function untilHealthy(what: string) {
  for (const instance of layout.instances) {
    await waitFor(
      async () => (await fetch(`${instance!.baseUrl}/api/health`).catch(() => null))?.status === 200,
      60_000,
      `${what}: an instance to recover`,
    );
  }
  await layout.untilInRotation();
}

/** Error lines the instances logged (why a 5xx other than 503 happened, should there be one). */
const errorLines = () =>
  layout.instances
    .flatMap((instance) => instance?.logs ?? [])
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"level":"error"'))
    .slice(0, 20)
    .join('\n');

/**
 * Outage assertions shared by the PostgreSQL and PgBouncer restarts: at least one 503 (the
 * outage was seen), no 5xx other than 503 and no unanswered request, every API 5xx in the error
 * shape, and every request started once the instances were healthy again succeeded.
 */
function expectOutageSeenAndRecovered(stats: LoadStats, recoveredAt: number) {
  const api503 = stats.samples.filter((s) => s.kind !== 'page' && s.status === 503);
  expect(api503.length, `no 503 seen: ${byStatus(stats)}`).toBeGreaterThan(0);
  const other = stats.samples.filter((s) => s.status === 0 || (s.status >= 500 && s.status !== 503));
  expect(
    other.map((s) => `${s.kind} ${s.status} ${s.text}`),
    errorLines(),
  ).toEqual([]);
  const shapeless = stats.samples.filter((s) => s.kind !== 'page' && s.status >= 500 && !s.shaped);
  expect(shapeless.map((s) => `${s.kind} ${s.status} ${s.text}`)).toEqual([]);
  const after = stats.samples.filter((s) => s.start >= recoveredAt);
  expect(after.length).toBeGreaterThan(0);
  expect(firstFailures(after.filter(isFailure))).toBe('');
}

describe('instances come and go under load', () => {
  it('a rolling restart (SIGTERM one, start it, then the other): nothing fails, nothing is lost, the cache keeps answering', async () => {
    const stats = await underLoad(async () => {
      await restart(0);
      await sleep(1000);
      await restart(1);
    });
    const edits = expectEditsKept(stats);
    figures.push(`rolling restart: ${summary(stats)}; ${edits} acknowledged edits, each article reads as its last`);
    expect(failures(stats, 'reads').length, firstFailures(failures(stats, 'reads'))).toBe(0);
    expect(failures(stats, 'writes').length, firstFailures(failures(stats, 'writes'))).toBe(0);
    // The four pages are cached before the load starts and nothing purges them during it: only
    // a retry after an instance left can miss (measured: 99+ %).
    expect(hitRatio(stats)).toBeGreaterThanOrEqual(0.9);
  });

  it('kill -9 of one instance: reads are retried on the other; only writes in flight on it while it died may fail, in the error shape', async () => {
    const dying = { from: 0, to: 0 };
    let inFlightAtKill = 0;
    const stats = await underLoad(async (load) => {
      // The signal when at least two writes are in flight (the paced workers leave gaps), so
      // that writes die with the instance; checked every millisecond, for at most 5 s.
      for (const until = Date.now() + 5_000; load.writesInFlight().size < 2 && Date.now() < until;) await sleep(1);
      // The snapshot and the signal in one turn of the event loop: nothing is sent in between.
      inFlightAtKill = load.writesInFlight().size;
      dying.from = performance.now();
      await layout.stopInstance(0, 'SIGKILL');
      // Until the kernel reports it gone: its listening socket still takes connections while
      // the process is torn down, so a write sent just after the signal can land on it too.
      dying.to = performance.now();
      await sleep(3000);
      await layout.startInstance(0);
      await layout.untilInRotation();
    });
    const failedWrites = failures(stats, 'writes');
    const edits = expectEditsKept(stats);
    // Writes in flight while the instance died: sent before it was gone, answered after the signal.
    const inFlightWhileDying = stats.samples.filter((s) => isWrite(s) && s.start < dying.to && s.end > dying.from);
    figures.push(
      `kill -9: ${summary(stats)}; writes in flight at the signal: ${inFlightAtKill}, while it died ` +
        `(${(dying.to - dying.from).toFixed(0)} ms until exit): ${inFlightWhileDying.length}; ${edits} acknowledged edits kept`,
    );
    // The fault happened: writes were on their way when the instance died.
    expect(inFlightAtKill).toBeGreaterThanOrEqual(2);
    expect(failures(stats, 'reads').length, firstFailures(failures(stats, 'reads'))).toBe(0);
    // A write that failed was in flight on an instance while it died (those on the other one
    // succeed); one sent once it was gone is retried by Varnish on the other instance.
    const dyingSeqs = new Set(inFlightWhileDying.map((s) => s.seq));
    expect(failedWrites.filter((s) => !dyingSeqs.has(s.seq)).map((s) => `${s.kind} ${s.status} ${s.text}`)).toEqual([]);
    expect(failedWrites.length).toBeLessThanOrEqual(inFlightWhileDying.length);
    // Each one a 503 in the API's error shape (Varnish's, as it cannot send the body again).
    expect(
      failedWrites.filter((s) => s.status !== 503 || !s.shaped).map((s) => `${s.kind} ${s.status} ${s.text}`),
    ).toEqual([]);
  });

  it('every instance stopped: the cached page is served stale; once they are back, the first answer is fresh', async () => {
    // The page must be past its s-maxage so that what the proxy serves is stale, not fresh.
    // Not requested since: a request now would fetch it again.
    const cacheControl = longCached.cacheControl;
    const sMaxAge = Number(/s-maxage=(\d+)/.exec(cacheControl)?.[1] ?? 60);
    // Past s-maxage and past the few seconds of grace the proxy allows while an instance is up.
    const wait = cachedAt + (sMaxAge + 7) * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    await Promise.all([layout.stopInstance(0), layout.stopInstance(1)]);
    const stale = await page(longCached.path);
    expect(stale.status).toBe(200);
    expect(cacheStatus(stale)).toBe('STALE');
    // Stale, and no staler than Cache-Control allows (s-maxage plus the longest stale-* window).
    const staleWindows = [...cacheControl.matchAll(/stale-(?:while-revalidate|if-error)=(\d+)/g)].map((m) =>
      Number(m[1]),
    );
    expect(Number(stale.headers.age)).toBeGreaterThan(sMaxAge);
    expect(Number(stale.headers.age)).toBeLessThanOrEqual(sMaxAge + Math.max(0, ...staleWindows));
    expect(stale.text).toContain(`${longCached.title}<`);

    await Promise.all([layout.startInstance(0), layout.startInstance(1)]);
    await layout.untilInRotation();
    const fresh = await page(longCached.path);
    expect(fresh.status).toBe(200);
    expect(cacheStatus(fresh)).toBe('MISS');
    figures.push(
      `all instances stopped: cached page served ${cacheStatus(stale)} at Age ${stale.headers.age} s ` +
        `(Cache-Control: ${cacheControl}); first answer once they are back: ${cacheStatus(fresh)}`,
    );
  });

  it('PostgreSQL restarted under load: 503 while it is down (at least one, never 500), pages from the cache, every instance recovers by itself', async () => {
    const down = { from: 0, to: 0 };
    let recoveredAt = 0;
    const stats = await underLoad(async () => {
      down.from = performance.now();
      layout.postgres.stop();
      await sleep(3000);
      layout.postgres.start();
      down.to = performance.now();
      await untilHealthy('PostgreSQL restart');
      recoveredAt = performance.now();
    });
    const duringOutage = pages(stats).filter((s) => s.start >= down.from && s.end <= down.to);
    figures.push(
      `PostgreSQL down ${(down.to - down.from).toFixed(0)} ms under load (through PgBouncer): ${byStatus(stats)}; ` +
        `${duringOutage.length} page GETs while it was down: ${[...new Set(duringOutage.map((s) => `${s.status} ${s.cache}`))].join(', ')}; ` +
        `healthy again ${((recoveredAt - down.to) / 1000).toFixed(1)} s after its start`,
    );
    expectOutageSeenAndRecovered(stats, recoveredAt);
    // Readers are not affected: the pages were cached, and the cache kept answering them.
    expect(duringOutage.length).toBeGreaterThan(0);
    for (const s of duringOutage) {
      expect(s.status).toBe(200);
      expect(['HIT', 'STALE']).toContain(s.cache);
    }
    expect(pages(stats).filter(isFailure)).toEqual([]);
  });

  it('PgBouncer restarted under load (SIGINT as Debian’s unit stops it, then started): 503s only, then recovery by itself', async () => {
    const down = { from: 0, to: 0 };
    let recoveredAt = 0;
    const stats = await underLoad(async () => {
      down.from = performance.now();
      await layout.pgbouncer.stop();
      await sleep(3000);
      await layout.pgbouncer.start();
      down.to = performance.now();
      await untilHealthy('PgBouncer restart');
      recoveredAt = performance.now();
    });
    const duringOutage = pages(stats).filter((s) => s.start >= down.from && s.end <= down.to);
    figures.push(
      `PgBouncer down ${(down.to - down.from).toFixed(0)} ms under load: ${byStatus(stats)}; ` +
        `${duringOutage.length} page GETs while it was down: ${[...new Set(duringOutage.map((s) => `${s.status} ${s.cache}`))].join(', ')}; ` +
        `healthy again ${((recoveredAt - down.to) / 1000).toFixed(1)} s after its start`,
    );
    expectOutageSeenAndRecovered(stats, recoveredAt);
    expect(pages(stats).filter(isFailure)).toEqual([]);
  });
});
