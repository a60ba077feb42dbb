/**
 * Write path, before and after: `POST /posts` of the benchmark article (about 3 KB of
 * Markdown, converted to HTML per write) at concurrency 8, against one or more checkouts of
 * this project, interleaved in time so the machine's drift hits each alike.
 *
 *   npx tsx bench/write-path.ts [--project DIR]... [--rounds 3] [--slice-seconds 5]
 *
 * Each project is started the way an operator starts it (`npm start` in its directory, so it
 * must be built) on its own embedded PostgreSQL under a temporary DATA_DIR, with an account
 * created through its own CLI; without --project the current checkout is measured alone.
 * Every write has its own title, so no slug collides.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { removeDataDir, ROOT, tempDataDir } from '../tests/support/service';
import { runBench } from './support/bench-service';
import { BENCH_MARKDOWN, BENCH_TITLE } from './support/article';
import { mergeResults, runLoad, type LoadResult } from './load';

const { values } = parseArgs({
  options: {
    project: { type: 'string', multiple: true, default: [ROOT] },
    rounds: { type: 'string', default: '3' },
    'slice-seconds': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
});
const ROUNDS = Number(values.rounds);
const SLICE_MS = Number(values['slice-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);

interface Instance {
  project: string;
  label: string;
  baseUrl: string;
  token: string;
  dataDir: string;
  child: ChildProcess;
}

async function start(project: string): Promise<Instance> {
  const dataDir = tempDataDir('publishing-bench-write-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: '',
    NODE_ENV: 'production',
  };
  // Its own process group, so the whole tree (npm, node, PostgreSQL) can be stopped at the end.
  const child = spawn('npm', ['start'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${project} did not start:\n${seen}`)), 180_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /serving on http:\/\/[0-9.]+:(\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  const limits = ['read_per_min', 'write_per_min', 'publish_per_min'].flatMap((name) => [
    '--limit',
    `${name}=100000000`,
  ]);
  const out = execFileSync('npm', ['run', '--silent', 'cli', '--', 'account', 'create', 'bench', ...limits], {
    cwd: project,
    env,
    encoding: 'utf8',
  });
  const token = (JSON.parse(out.trim().split('\n').pop()!) as { token: string }).token;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: project, encoding: 'utf8' }).trim();
  return { project, label: `${project} (${commit})`, baseUrl, token, dataDir, child };
}

async function stop(instance: Instance): Promise<void> {
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  process.kill(-instance.child.pid!, 'SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  removeDataDir(instance.dataDir);
}

async function main() {
  const instances: Instance[] = [];
  try {
    for (const project of values.project!) instances.push(await start(project));
    let serial = 0;
    const slice = (inst: Instance) =>
      runLoad(
        inst.baseUrl,
        () => ({
          method: 'POST',
          path: '/api/v1/author/posts',
          headers: { authorization: `Bearer ${inst.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: `${BENCH_TITLE} ${serial++}`,
            markdown: BENCH_MARKDOWN,
            tags: ['performance', 'postgresql'],
          }),
        }),
        { concurrency: CONCURRENCY, durationMs: SLICE_MS },
      );
    for (const inst of instances)
      await runLoad(inst.baseUrl, () => ({ path: '/api/health' }), { concurrency: 2, durationMs: 500 });
    for (const inst of instances) await slice(inst); // warm-up: JIT, worker threads, statement caches
    const parts = new Map<Instance, LoadResult[]>(instances.map((i) => [i, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const inst of round % 2 === 0 ? instances : [...instances].reverse()) {
        const r = await slice(inst);
        if (Object.keys(r.statuses).some((k) => k !== '201'))
          throw new Error(`${inst.label}: statuses ${JSON.stringify(r.statuses)}`);
        parts.get(inst)!.push(r);
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
    console.log(
      `\nPOST /posts of the benchmark article, concurrency ${CONCURRENCY}, ${ROUNDS} interleaved slices of ${SLICE_MS / 1000} s each\n`,
    );
    console.log('| project | writes | req/s | p50 ms | p90 ms | p99 ms |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const inst of instances) {
      const r = mergeResults(parts.get(inst)!);
      console.log(
        `| ${inst.label} | ${r.requests} | ${r.rps.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.p99.toFixed(1)} |`,
      );
    }
  } finally {
    for (const inst of instances) await stop(inst);
  }
}

runBench(main);
