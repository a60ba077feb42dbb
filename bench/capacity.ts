/**
 * The figures docs/capacity.md is computed from: each kind of request, on the shipped layout
 * (tests/deployment/layout.ts starts deploy/ as shipped: Debian's PostgreSQL behind PgBouncer in
 * transaction mode, two instances under their unit's command, Varnish with the shipped VCL in
 * front), alone for a while, with what each tier spent on it:
 * - CPU time per request of the two instances (their conversion threads included), of every
 *   PostgreSQL process of the cluster, of PgBouncer and of Varnish, read from /proc;
 * - PostgreSQL's write-ahead log bytes per request (`pg_current_wal_lsn` before and after);
 * - so requests per second one core of each tier can carry (1 s ÷ its CPU per request).
 * Kinds that write run last, so the background work they leave (autovacuum) falls in no
 * read's slice. The load generator runs on the same 2 cores: req/s is what this machine reached, the CPU
 * per request is the figure that carries to other machines.
 *
 *   npm run build && npx tsx bench/capacity.ts [--seconds 10] [--articles 20000] [--tokens 64] [--direct]
 *
 * `--tokens N`: the API reads are also measured as N integrations send them, each request with
 * the next of N accounts' tokens (and that account's own article), not only as one author's.
 *
 * `--direct`: the instances connect to PostgreSQL itself, with named prepared statements, as
 * they would through PgBouncer 1.21+ with max_prepared_statements: what planning on every call
 * costs behind the shipped PgBouncer 1.18.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cli } from '../tests/support/service';
import { CONSOLE_HOST, Layout, PUBLIC_HOST } from '../tests/deployment/layout';
import { runBench } from './support/bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';
import { runLoad, type LoadRequest } from './load';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    articles: { type: 'string', default: '20000' },
    /** Accounts whose tokens the "many tenants" reads take in turn. */
    tokens: { type: 'string', default: '64' },
    /** The instances connect to PostgreSQL directly (named prepared statements), not through PgBouncer. */
    direct: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const TICK = 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

/** Every process under `root` (itself included), from /proc's parent links. */
function treeOf(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

/**
 * CPU seconds (user + system) spent so far by these processes, plus what the first (the tree's
 * root) collected from children it reaped: a PostgreSQL backend that exits during a slice keeps
 * counting.
 */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  pids.forEach((pid, i) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      if (i === 0) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      /* exited */
    }
  });
  return ticks / TICK;
}

/** Readers of their own: one counter for every run (warm-up included), an address per /24. */
let readerNumber = 0;

interface Kind {
  name: string;
  concurrency: number;
  /** Where it is sent: through Varnish (as readers and integrations reach it) or to an instance. */
  via: 'varnish' | 'instance';
  next: (i: number) => LoadRequest;
  ok: number[];
  /** How long after the load its work goes on (the readers' flush every 5 s), counted with it. */
  settleMs?: number;
}

async function main() {
  const layout = new Layout({ direct: values.direct });
  await layout.start();
  try {
    const db = new pg.Client({ connectionString: layout.env.DATABASE_URL });
    await db.connect();
    const high = ['read_per_min', 'write_per_min', 'publish_per_min'].flatMap((n) => ['--limit', `${n}=100000000`]);
    const account = (await cli(layout.cliEnv(), ['account', 'create', 'capacity', ...high])).json as {
      id: string;
      token: string;
    };
    // The API is served on the console's host (deploy/varnish/publishing.vcl), passed through.
    const auth = { authorization: `Bearer ${account.token}`, host: CONSOLE_HOST };
    const varnish = `http://127.0.0.1:${layout.varnish.ports.http}`;
    const api = async (method: string, route: string, json?: unknown) => {
      const res = await fetch(`${layout.instances[0]!.baseUrl}/api/v1/author${route}`, {
        method,
        headers: { authorization: auth.authorization, 'content-type': 'application/json' },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, string> };
    };
    const first = await api('POST', '/posts', { title: BENCH_TITLE, markdown: BENCH_MARKDOWN, tags: ['capacity'] });
    if (first.status !== 201) throw new Error(`seeding POST: ${first.status}`);
    const published = await api('POST', `/posts/${first.body.id}/publish`);
    if (published.status !== 200) throw new Error(`publish: ${published.status}`);
    const page = published.body.canonical_path!;
    const publicId = page.slice(page.lastIndexOf('-') + 1);
    // The author's other articles, cloned in SQL (as the read benchmarks do): a realistic table.
    await db.query(
      `INSERT INTO posts (id, account_id, public_id, slug, title, markdown, html, tags, status, created_at, updated_at)
       SELECT gen_random_uuid(), account_id, lpad(to_hex(g), 10, '0'), 'copy-' || g, 'Copy ' || g, markdown, html,
              tags, 'draft', created_at - (g || ' seconds')::interval, created_at - (g || ' seconds')::interval
         FROM posts p, generate_series(1, $2::int) g WHERE p.id = $1`,
      [first.body.id, Number(values.articles) - 1],
    );
    await db.query('ANALYZE');
    const targets: string[] = [];
    for (let i = 0; i < 64; i++) {
      const made = await api('POST', '/posts', { title: `Edited ${i}`, markdown: BENCH_MARKDOWN });
      targets.push(made.body.id!);
    }

    // N integrations, each with its own token and article: the load a platform of many authors sends.
    const tenants: { auth: { authorization: string; host: string }; post: string }[] = [];
    for (let i = 0; i < Number(values.tokens); i += 4) {
      const made = await Promise.all(
        Array.from({ length: Math.min(4, Number(values.tokens) - i) }, async (_, j) => {
          const created = (await cli(layout.cliEnv(), ['account', 'create', `tenant-${i + j}`, ...high])).json as {
            token: string;
          };
          const res = await fetch(`${layout.instances[0]!.baseUrl}/api/v1/author/posts`, {
            method: 'POST',
            headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `Tenant ${i + j}`, markdown: BENCH_MARKDOWN }),
          });
          if (res.status !== 201) throw new Error(`tenant POST: ${res.status}`);
          const post = ((await res.json()) as { id: string }).id;
          return { auth: { authorization: `Bearer ${created.token}`, host: CONSOLE_HOST }, post };
        }),
      );
      tenants.push(...made);
    }
    const tenant = (i: number) => tenants[i % tenants.length]!;

    const kinds: Kind[] = [
      {
        name: `API read GET /me, ${tenants.length} tokens`,
        concurrency: 32,
        via: 'varnish',
        next: (i) => ({ path: '/api/v1/author/me', headers: tenant(i).auth }),
        ok: [200],
      },
      {
        name: `API read GET /posts/{id}, ${tenants.length} tokens`,
        concurrency: 32,
        via: 'varnish',
        next: (i) => ({ path: `/api/v1/author/posts/${tenant(i).post}`, headers: tenant(i).auth }),
        ok: [200],
      },
      {
        name: 'API read GET /posts/{id}',
        concurrency: 32,
        via: 'varnish',
        next: () => ({ path: `/api/v1/author/posts/${first.body.id}`, headers: auth }),
        ok: [200],
      },
      {
        name: 'API read GET /posts (page 1)',
        concurrency: 32,
        via: 'varnish',
        next: () => ({ path: '/api/v1/author/posts?limit=20', headers: auth }),
        ok: [200],
      },
      {
        name: 'public page, from the cache',
        concurrency: 32,
        via: 'varnish',
        next: () => ({ path: page, headers: { host: PUBLIC_HOST } }),
        ok: [200],
      },
      {
        name: 'public page, origin (cache miss)',
        concurrency: 32,
        via: 'instance',
        next: () => ({ path: page, headers: { host: PUBLIC_HOST } }),
        ok: [200],
      },
      {
        name: 'reader beacon (open), each from a new reader',
        concurrency: 32,
        // To an instance, with the address Varnish would forward: through Varnish's plain socket
        // every reader would be 127.0.0.1, past its per-address cap after 20.
        via: 'instance',
        next: () => {
          const n = readerNumber++;
          return {
            path: `/api/reader/${publicId}/open.gif`,
            headers: {
              host: PUBLIC_HOST,
              'user-agent': `Mozilla/5.0 (reader ${n})`,
              // Each reader an IPv4 address of its own (IPv4 readers count one by one).
              'x-forwarded-for': `10.${(n >> 8) & 255}.${n & 255}.7`,
            },
          };
        },
        ok: [200, 204],
        settleMs: 7000,
      },
      {
        name: 'API write POST /posts (3 KB)',
        concurrency: 8,
        via: 'varnish',
        next: (i) => ({
          method: 'POST',
          path: '/api/v1/author/posts',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Capacity ${i}`, markdown: BENCH_MARKDOWN, tags: ['capacity'] }),
        }),
        ok: [201],
      },
      {
        name: 'API write PATCH /posts/{id} (3 KB)',
        concurrency: 8,
        via: 'varnish',
        next: (i) => ({
          method: 'PATCH',
          path: `/api/v1/author/posts/${targets[i % targets.length]}`,
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ markdown: `${BENCH_MARKDOWN}\n\nEdit ${i}.` }),
        }),
        ok: [200],
      },
    ];

    const pgRoot = Number(readFileSync(path.join(layout.postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const tiers = () => ({
      instances: layout.instances.flatMap((s) => (s?.process.pid ? treeOf(s.process.pid) : [])),
      postgres: treeOf(pgRoot),
      pgbouncer: layout.pgbouncer.process?.pid ? treeOf(layout.pgbouncer.process.pid) : [],
      varnish: layout.varnish.process?.pid ? treeOf(layout.varnish.process.pid) : [],
    });
    const wal = async () =>
      BigInt((await db.query<{ lsn: string }>(`SELECT pg_current_wal_lsn() - '0/0' AS lsn`)).rows[0]!.lsn);

    console.log(
      `\nThe shipped layout (2 instances, ${values.direct ? 'straight to PostgreSQL 15 (no PgBouncer)' : 'PgBouncer, PostgreSQL 15'}, Varnish), ${values.articles} articles, ` +
        `${SECONDS} s per kind after a 3 s warm-up; CPU per request from /proc, WAL from pg_current_wal_lsn\n`,
    );
    console.log(
      '| kind | c | req/s | p50 ms | p99 ms | instances µs/req | PostgreSQL µs/req | PgBouncer µs/req | Varnish µs/req | WAL bytes/req | req/s per instance core | per PostgreSQL core |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const kind of kinds) {
      const base = kind.via === 'varnish' ? varnish : layout.instances[0]!.baseUrl;
      // What the previous kind left (dead rows, statistics) is cleaned up outside any slice.
      await db.query('VACUUM ANALYZE');
      await runLoad(base, kind.next, { concurrency: kind.concurrency, durationMs: 3000 });
      await new Promise((r) => setTimeout(r, kind.settleMs ?? 0));
      const pids = tiers();
      const before = Object.fromEntries(Object.entries(pids).map(([k, v]) => [k, cpuSeconds(v)]));
      const walBefore = await wal();
      const r = await runLoad(base, kind.next, { concurrency: kind.concurrency, durationMs: SECONDS * 1000 });
      await new Promise((res) => setTimeout(res, kind.settleMs ?? 0));
      const walAfter = await wal();
      const after = Object.fromEntries(Object.entries(pids).map(([k, v]) => [k, cpuSeconds(v)]));
      const bad = Object.entries(r.statuses).filter(([s]) => !kind.ok.includes(Number(s)));
      if (bad.length > 0) throw new Error(`${kind.name}: ${JSON.stringify(r.statuses)}`);
      const us = (tier: string) => ((after[tier]! - before[tier]!) / r.requests) * 1e6;
      const walPer = Number(walAfter - walBefore) / r.requests;
      console.log(
        `| ${kind.name} | ${kind.concurrency} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ` +
          `${us('instances').toFixed(0)} | ${us('postgres').toFixed(0)} | ${us('pgbouncer').toFixed(0)} | ` +
          `${us('varnish').toFixed(0)} | ${walPer.toFixed(0)} | ${(1e6 / us('instances')).toFixed(0)} | ` +
          `${us('postgres') > 0 ? (1e6 / us('postgres')).toFixed(0) : '–'} |`,
      );
    }
    // The instances flush counted readers every 5 s (server/runtime/create-app.ts); then the tables.
    await new Promise((r) => setTimeout(r, 7000));
    await db.query('VACUUM ANALYZE');
    const TABLES = [
      'posts',
      'post_revisions',
      'post_tags',
      'reader_seen',
      'reader_sources',
      'reader_daily',
      'rate_windows',
      'media',
    ];
    console.log('\n| table (indexes and TOAST included) | size | rows | bytes per row |\n| --- | ---: | ---: | ---: |');
    for (const table of TABLES) {
      const { bytes, rows } = (
        await db.query<{ bytes: string; rows: string }>(
          `SELECT pg_total_relation_size('${table}') AS bytes, (SELECT count(*) FROM ${table}) AS rows`,
        )
      ).rows[0]!;
      console.log(
        `| ${table} | ${(Number(bytes) / 2 ** 20).toFixed(1)} MiB | ${Number(rows).toLocaleString()} | ` +
          `${Number(rows) > 0 ? (Number(bytes) / Number(rows)).toFixed(0) : '–'} |`,
      );
    }
    console.log(
      `\nReaders counted: ${(await db.query<{ n: string }>('SELECT coalesce(sum(opens), 0) AS n FROM reader_daily')).rows[0]!.n} ` +
        `opens of ${readerNumber} beacons sent (warm-ups included).`,
    );
    // A benchmark whose service logged failures measured something else: show them.
    const failures = layout.instances.flatMap((s) =>
      (s?.logs.join('') ?? '').split('\n').filter((l) => l.includes('"level":"error"') || l.includes('failed')),
    );
    if (failures.length > 0)
      console.log(
        `\n${failures.length} failure lines in the instances' logs, the first:\n${failures.slice(0, 3).join('\n')}`,
      );
    await db.end();
  } finally {
    await layout.stop();
  }
}

runBench(main);
