#!/usr/bin/env node
// Why this file exists: `npm test` builds once (`npm run build`, its own row in the part-times
// table `.ci/run` prints), then runs vitest (`npm run test:unit`) and Playwright
// (`npm run test:e2e`) at the same time rather than one after the other. Playwright drives one
// browser through one test at a time and mostly waits (for pages, beacons, flushes), using well
// under a core; vitest's suites are the CPU-bound part. Side by side, the browser's waits overlap
// vitest's work and the whole line takes about as long as vitest alone (the README gives the
// figures). Each keeps its own real service and PostgreSQL on its own ports and data directory,
// so neither sees the other's accounts, articles or limits.
//
// Both run to their end, also when the other failed, so that one run reports every failure.
// Their output is passed through line by line, each line marked with where it came from
// (`vitest │`, `e2e    │`), so the two streams stay readable where they interleave. The exit code
// is vitest's when it failed, else Playwright's.
//
//   node scripts/test-side-by-side.mjs
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import readline from 'node:readline';

const SUITES = [
  { label: 'vitest', script: 'test:unit' },
  { label: 'e2e   ', script: 'test:e2e' },
];

/** Runs `npm run <script>`, its output marked with `label`; resolves to its exit code. */
function run({ label, script }) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // On a terminal the colours stay (through the pipe, the tools would drop them); into a
      // log file or CI's pipe, the tools see a pipe and leave them out.
      env: process.stdout.isTTY && !process.env.FORCE_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env,
    });
    const mark = (from, to) =>
      readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => {
        to.write(`${label} │ ${line}\n`);
      });
    mark(child.stdout, process.stdout);
    mark(child.stderr, process.stderr);
    child.on('error', (err) => {
      process.stderr.write(`${label} │ could not start npm run ${script}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Runs `npm run <script>` with its output as it is; resolves to its exit code. */
function runPlain(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A row of the part-times table (scripts/part-times.mjs), when `.ci/run` asks for them. */
function partRow(part, start, status) {
  const file = process.env.PART_TIMES_FILE;
  if (file) appendFileSync(file, `${start}\t${Date.now() / 1000}\t${status}\t${part}\t\n`);
}

const buildStart = Date.now() / 1000;
const built = await runPlain('build');
partRow('npm run build', buildStart, built);
if (built !== 0) process.exit(built);

const codes = await Promise.all(SUITES.map(run));
for (const [i, code] of codes.entries()) {
  if (code !== 0) process.stderr.write(`npm run ${SUITES[i].script} failed (exit ${code})\n`);
}
process.exit(codes.find((code) => code !== 0) ?? 0);
