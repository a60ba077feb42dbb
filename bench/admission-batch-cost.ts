/**
 * What an admitted read costs PostgreSQL per request as its batch grows
 * (server/admission/lanes.ts; a batch of one runs the lean statement): the service's own statements for `GET /posts/{id}` and a
 * page of 20, run on one connection for batches of 1, 2, 3, 8 and 32 requests of one token, with
 * the backend's CPU read from /proc. No HTTP and no Node work in the figure: it isolates what one
 * round trip, one token lookup and one window charge per batch save.
 *
 *   npm run build && npx tsx bench/admission-batch-cost.ts [--posts 20000] [--seconds 2] [--rounds 2]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { admittedQuery, type AdmittedRead } from '../server/admission/admitted-statement';
import { admittedPostPage, admittedPostRow } from '../server/data/posts/reads';
import { runBench, startBenchService } from './support/bench-service';
import { seedArticles } from './support/seed-articles';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
  },
});
const BATCHES = [1, 2, 3, 8, 32];
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function main() {
  const bench = await startBenchService('publishing-bench-batch-cost-');
  try {
    const seeded = await seedArticles(bench, { name: 'batch-cost', posts: Number(values.posts) });
    await bench.service.stop(); // only this connection works on the database
    const client = new pg.Client({ connectionString: bench.db.url });
    await client.connect();
    try {
      const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const [token] = (
        await client.query<{ secret_hash: Buffer }>('SELECT secret_hash FROM api_tokens WHERE account_id = $1', [
          seeded.accountId,
        ])
      ).rows;
      const reads: [string, AdmittedRead<unknown>][] = [
        ['GET /posts/{id}', admittedPostRow(seeded.postId)],
        ['GET /posts (page of 20)', admittedPostPage({ count: 21 })],
      ];
      const results: Record<string, number[]> = {};
      for (let round = 0; round < Number(values.rounds); round++) {
        for (const [name, read] of reads) {
          for (const k of BATCHES) {
            const batch = Array.from({ length: k }, () => ({ digest: token!.secret_hash, values: read.values }));
            const { statement: st, values: params } = admittedQuery(read.statement, batch);
            const query = { name: st.name, text: st.text, values: params };
            for (let i = 0; i < 20; i++) await client.query(query); // prepared, and past the plan choice
            const before = cpuSeconds(backend);
            const until = Date.now() + Number(values.seconds) * 1000;
            let requests = 0;
            while (Date.now() < until) {
              await client.query(query);
              requests += k;
            }
            (results[`${name}|${k}`] ??= []).push(((cpuSeconds(backend) - before) / requests) * 1e6);
          }
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      console.log(`\nPostgreSQL CPU per request (µs, median of ${values.rounds} rounds), by requests per statement\n`);
      console.log(`| read | ${BATCHES.join(' | ')} |`);
      console.log(`| --- | ${BATCHES.map(() => '---:').join(' | ')} |`);
      for (const [name] of reads)
        console.log(`| ${name} | ${BATCHES.map((k) => median(results[`${name}|${k}`]!).toFixed(0)).join(' | ')} |`);
    } finally {
      await client.end();
    }
  } finally {
    await bench.stop();
  }
}

runBench(main);
