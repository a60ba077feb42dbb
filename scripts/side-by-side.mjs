#!/usr/bin/env node
// Why this file exists: the README's test line is CPU-bound on a 2-core machine, and several of
// its steps are single-threaded tools that leave a core idle when run one after another. This
// runs npm scripts at the same time, each to its end (also when another failed, so that one run
// reports every failure), with every line of their output marked with the script it came from
// (`test:unit │ …`), so the interleaved streams stay readable. The exit code is the first
// failing script's, in the order given.
//
//   node scripts/side-by-side.mjs [--first <script>] <script>...
//
// `--first`: run that script alone before the others, its output as it is (`npm test` builds once
// this way, then runs vitest and Playwright together, which both use the build). `npm run lint`
// runs eslint, prettier, knip and tsc together; `npm test` runs vitest beside Playwright, whose
// browser mostly waits (for pages, beacons, flushes) while vitest's suites use the CPU. Each test
// runner keeps its own real service and PostgreSQL on its own ports and data directory, so
// neither sees the other's accounts, articles or limits.
//
// When `.ci/run` sets PART_TIMES_FILE, each script run adds its row to the table of part times
// (scripts/part-times.mjs).
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import readline from 'node:readline';

const args = process.argv.slice(2);
const firstAt = args.indexOf('--first');
const first = firstAt >= 0 ? args.splice(firstAt, 2)[1] : undefined;
if ((firstAt >= 0 && !first) || args.length === 0) {
  process.stderr.write('usage: node scripts/side-by-side.mjs [--first <script>] <script>...\n');
  process.exit(2);
}
const width = Math.max(...args.map((script) => script.length));

/**
 * Runs `npm run <script>`; with a label, each output line is marked with it, otherwise the output
 * goes through as it is. Resolves to the exit code, after adding the script's part-times row.
 */
function run(script, label) {
  const start = Date.now() / 1000;
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: label ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      // Through a pipe most tools leave their colours out; on a terminal they are kept. Into a
      // log file each tool decides for itself (vitest keeps its colour codes, eslint drops them).
      env:
        label && process.stdout.isTTY && !process.env.FORCE_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env,
    });
    if (label) {
      const mark = (from, to) =>
        readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => {
          to.write(`${label} │ ${line}\n`);
        });
      mark(child.stdout, process.stdout);
      mark(child.stderr, process.stderr);
    }
    const done = (code) => {
      const file = process.env.PART_TIMES_FILE;
      // Within the script that runs this one (`test`, `lint`): the table nests the row there.
      const within = process.env.npm_lifecycle_event ?? '';
      if (file) appendFileSync(file, `${start}\t${Date.now() / 1000}\t${code}\tnpm run ${script}\t\t${within}\n`);
      resolve(code);
    };
    child.on('error', (err) => {
      process.stderr.write(`${label ?? script} │ could not start npm run ${script}: ${err.message}\n`);
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

if (first) {
  const code = await run(first);
  if (code !== 0) process.exit(code);
}
const codes = await Promise.all(args.map((script) => run(script, script.padEnd(width))));
for (const [i, code] of codes.entries()) {
  if (code !== 0) process.stderr.write(`npm run ${args[i]} failed (exit ${code})\n`);
}
process.exit(codes.find((code) => code !== 0) ?? 0);
