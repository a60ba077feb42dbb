/**
 * The layout of deploy/, started for real (tests/deployment/layout.ts): Debian's Varnish in
 * front of two instances, one Debian PostgreSQL, one media directory, one
 * SESSION_SECRET. What a reader sees through the cache after each kind of change, and what
 * clients see while instances restart, die, or lose the database. Prints the figures the README
 * quotes (purge latencies, failure counts, hit ratio).
 */
import { spawn } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from '../support/service';
import { debianPackagesPresent, Layout, sleep, through, waitFor, type Reply } from './layout';

let layout: Layout;
let cachedAt = 0;
/** A page cached at the start, left alone until the stale check (it must be past s-maxage). */
let longCached = { path: '', title: '', cacheControl: '' };
const figures: string[] = [];

async function account(opts: { moderated?: boolean } = {}) {
  const handle = `deploy-${Math.random().toString(36).slice(2, 10)}`;
  const args = ['account', 'create', handle, ...(opts.moderated ? ['--moderated'] : [])];
  for (const name of ['read_per_min', 'write_per_min', 'publish_per_min', 'media_per_min'])
    args.push('--limit', `${name}=100000`);
  const res = await cli(layout.cliEnv(), args);
  if (res.code !== 0) throw new Error(`account create failed: ${res.stderr}`);
  return res.json as { id: string; handle: string; token: string };
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

const page = (path: string) => through(layout, 'public', 'GET', path);
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
async function cachedHit(path: string): Promise<Reply> {
  let reply = await page(path);
  await waitFor(
    async () => {
      reply = await page(path);
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
  const missing = debianPackagesPresent();
  if (missing.length > 0)
    throw new Error(`missing ${missing.join(', ')}: apt-get install varnish postgresql (.ci/run does)`);
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
}, 240_000);

afterAll(async () => {
  if (figures.length > 0) console.log(['deployment figures:', ...figures].join('\n  '));
  await layout?.stop();
}, 120_000);

describe('reader beacons on the public host', () => {
  it('reach an instance every time, never cached, and count readers by their own address', async () => {
    const author = await account();
    const post = await published(author.token, 'Counted through the proxy');
    const publicId = post.canonical_path.slice(-10);
    const beacon = (userAgent: string, forwardedFor: string) =>
      through(layout, 'public', 'GET', `/api/reader/${publicId}/open.gif`, {
        headers: { 'user-agent': userAgent, 'x-forwarded-for': forwardedFor, 'sec-fetch-dest': 'image' },
      });
    const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';
    // One reader forging two addresses counts once; a second browser on the same address counts too.
    for (const reply of [
      await beacon(browser, '203.0.113.1'),
      await beacon(browser, '203.0.113.2'),
      await beacon(`${browser} Edg/140.0`, '203.0.113.3'),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('image/gif');
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(cacheStatus(reply)).not.toBe('HIT');
    }
    let opens = -1;
    await waitFor(
      async () => {
        const read = await api('GET', `/posts/${post.id}`, author.token);
        opens = (JSON.parse(read.text) as { open_count: number }).open_count;
        return opens >= 2;
      },
      15_000,
      'the beacons flushed',
    );
    await sleep(5500); // one more flush interval: nothing else arrives
    const read = await api('GET', `/posts/${post.id}`, author.token);
    expect((JSON.parse(read.text) as { open_count: number }).open_count).toBe(2);
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
      // The 404 is cached now (s-maxage=10); the publish must purge it.
      expect(cacheStatus(await page(post.canonical_path))).toBe('HIT');
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
      token: author.token,
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const media = JSON.parse(uploaded.text) as { url: string };
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

interface LoadStats {
  requests: number;
  byStatus: Map<string, number>;
  failedReads: number;
  failedWrites: number;
  publicGets: number;
  hits: number;
  acknowledged: string[];
  /** API answers 5xx whose body is not the contract's `{"error": …}` shape. */
  shapelessErrors: number;
  /** The first failures, for the message when one is not expected. */
  failures: string[];
}

/**
 * Steady mixed load through the proxy while `during` runs: public pages (cached), API reads,
 * creates and edits, `workers` at a time. A failure is no answer, or a 5xx.
 */
async function underLoad(during: () => Promise<void>, workers = 6): Promise<LoadStats> {
  const author = await account();
  const pages: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const post = await published(author.token, `Load ${i}`);
    pages.push(post.canonical_path);
    ids.push(post.id);
  }
  // Past the publishes' second purge (2 s later), so the pages stay cached during the load.
  await sleep(2500);
  const stats: LoadStats = {
    requests: 0,
    byStatus: new Map(),
    failedReads: 0,
    failedWrites: 0,
    publicGets: 0,
    hits: 0,
    acknowledged: [],
    shapelessErrors: 0,
    failures: [],
  };
  let running = true;
  const count = (kind: string, reply: Reply, write: boolean) => {
    stats.requests++;
    const key = `${kind} ${reply.status}`;
    stats.byStatus.set(key, (stats.byStatus.get(key) ?? 0) + 1);
    if (kind !== 'page' && reply.status >= 500 && !hasErrorShape(reply.text)) stats.shapelessErrors++;
    if (reply.status === 0 || reply.status >= 500) {
      if (stats.failures.length < 5) stats.failures.push(`${kind} ${reply.status} ${reply.text.slice(0, 160)}`);
      if (write) stats.failedWrites++;
      else stats.failedReads++;
    }
  };
  const worker = async (w: number) => {
    for (let n = 0; running; n++) {
      const op = (n + w) % 10;
      if (op < 5) {
        const reply = await page(pages[n % pages.length]!);
        stats.publicGets++;
        if (cacheStatus(reply) === 'HIT') stats.hits++;
        count('page', reply, false);
      } else if (op < 7) {
        count('read', await api('GET', `/posts/${ids[n % ids.length]}`, author.token), false);
      } else if (op < 9) {
        const reply = await api('POST', '/posts', author.token, { title: `w${w} n${n}`, markdown: 'Load text.' });
        count('create', reply, true);
        if (reply.status === 201) stats.acknowledged.push((JSON.parse(reply.text) as { id: string }).id);
      } else {
        count('edit', await api('PATCH', `/posts/${ids[w % ids.length]}`, author.token, { subtitle: `n${n}` }), true);
      }
    }
  };
  const load = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  await sleep(1000);
  try {
    await during();
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
  return stats;
}

function hasErrorShape(text: string): boolean {
  try {
    return typeof (JSON.parse(text) as { error?: unknown }).error === 'string';
  } catch {
    return false;
  }
}

const summary = (stats: LoadStats) =>
  `${stats.requests} requests, ${stats.failedReads} failed reads, ${stats.failedWrites} failed writes, ` +
  `${stats.acknowledged.length} acknowledged creates all present, hit ratio ${((100 * stats.hits) / Math.max(1, stats.publicGets)).toFixed(1)}% of ${stats.publicGets} page GETs`;

/** The rolling restart of the README: stop (SIGTERM drains first), start, wait until it is in rotation. */
async function restart(i: 0 | 1) {
  await layout.stopInstance(i);
  await layout.startInstance(i);
  await layout.untilInRotation();
}

describe('instances come and go under load', () => {
  it('a rolling restart (SIGTERM one, start it, then the other): nothing fails, nothing is lost', async () => {
    const stats = await underLoad(async () => {
      await restart(0);
      await sleep(1000);
      await restart(1);
    });
    figures.push(`rolling restart: ${summary(stats)}`);
    expect(stats.failedReads, stats.failures.join('\n')).toBe(0);
    expect(stats.failedWrites, stats.failures.join('\n')).toBe(0);
  });

  it('kill -9 of one instance: reads are retried on the other; only writes in flight on it may fail', async () => {
    const workers = 6;
    const stats = await underLoad(async () => {
      await layout.stopInstance(0, 'SIGKILL');
      await sleep(3000);
      await layout.startInstance(0);
      await layout.untilInRotation();
    }, workers);
    figures.push(`kill -9: ${summary(stats)} (writes in flight on the killed instance may fail)`);
    expect(stats.failedReads).toBe(0);
    // At most one request per worker can have been in flight on the killed instance.
    expect(stats.failedWrites).toBeLessThanOrEqual(workers);
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

    await layout.startInstance(0);
    await layout.startInstance(1);
    await layout.untilInRotation();
    const fresh = await page(longCached.path);
    expect(fresh.status).toBe(200);
    expect(cacheStatus(fresh)).toBe('MISS');
    figures.push(
      `all instances stopped: cached page served ${cacheStatus(stale)} at Age ${stale.headers.age} s ` +
        `(Cache-Control: ${cacheControl}); first answer once they are back: ${cacheStatus(fresh)}`,
    );
  });

  it('PostgreSQL restarted under load: 503 while it is down (never 500), every instance recovers by itself', async () => {
    let down = 0;
    const stats = await underLoad(async () => {
      layout.postgres.stop();
      const stopped = Date.now();
      await sleep(3000);
      layout.postgres.start();
      down = Date.now() - stopped;
      for (const instance of layout.instances) {
        await waitFor(
          async () => (await fetch(`${instance!.baseUrl}/api/health`)).status === 200,
          30_000,
          'an instance to recover',
        );
      }
    });
    const statuses = [...stats.byStatus.entries()].map(([k, v]) => `${k}: ${v}`).join(', ');
    figures.push(`PostgreSQL down ${down} ms under load: ${statuses}`);
    const serverErrors = [...stats.byStatus.entries()].filter(([k]) => / (0|5\d\d)$/.test(k) && !k.endsWith(' 503'));
    // What the instances logged of a 5xx other than 503 says why, should there be one.
    const failedLines = layout.instances
      .flatMap((instance) => instance?.logs ?? [])
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"level":"error"'));
    expect(serverErrors, failedLines.join('\n')).toEqual([]);
    // Whether an instance or the proxy answered it, the 503 has the API's error shape.
    expect(stats.shapelessErrors).toBe(0);
    // Readers are not affected: the pages were cached, and the cache kept serving them.
    expect(stats.byStatus.get('page 503') ?? 0).toBe(0);
  });
});
