#!/usr/bin/env node
// Why this file exists: `.ci/run` ends by printing how long each part of the README's
// test line took, also when a part failed. This prints that table from the part-times file the
// parts wrote while they ran (PART_TIMES_FILE, which `.ci/run` sets), one row a line:
//
//   start <TAB> end <TAB> status <TAB> part <TAB> note [<TAB> within]
//
// start and end in Unix seconds; status `0` when the part passed, a number for a command's exit
// code, `not run` for a part skipped after a failure (start = end = when), other text for what
// failed. `within`: the npm script whose run the part belongs to (the writer's
// npm_lifecycle_event), when it ran inside one. Who writes them:
// - `.ci/run`: one row per part of the line (`npm ci`, `npm run lint`, `npm test`);
// - scripts/side-by-side.mjs: each script it runs (`npm run build`, `npm run test:unit`, …);
// - tests/support/part-times-reporter.ts: vitest's start-up and each vitest project;
// - e2e/support/part-times-reporter.ts: Playwright.
// A row is printed under the last row before it that ran its `within` script, or without one
// under the row whose span holds it, so the writers need not know about each other; parts that
// ran side by side are siblings. `npm run <script>` rows whose script is a single command show it
// as their note (`vitest run`, `playwright test`), read from ./package.json.
//
//   node scripts/part-times.mjs <part-times file>
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/part-times.mjs <part-times file>');
  process.exit(2);
}
process.stdout.write(table(existsSync(file) ? readFileSync(file, 'utf8') : '', packageScripts()));

/** The rows of the part-times file as the lines of the table. */
function table(text, scripts = {}) {
  const rows = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const [start = '', end = '', status = '', part = '', note = '', within = ''] = line.split('\t');
      // EPOCHREALTIME follows the locale's decimal separator.
      const time = (field) => (field === '' ? NaN : Number(field.replace(',', '.')));
      return { index, start: time(start), end: time(end), status, part, note, within, children: [] };
    });
  if (rows.length === 0) return 'part times: nothing was recorded\n';
  const timed = rows.filter((r) => Number.isFinite(r.start) && Number.isFinite(r.end));
  const untimed = rows.filter((r) => !timed.includes(r));

  // Longest first among equal starts, so that a part comes before the parts it holds.
  // A part that did not run is placed at the time it was skipped, and holds nothing.
  timed.sort((a, b) => a.start - b.start || b.end - a.end || a.index - b.index);
  const roots = [];
  for (const [i, r] of timed.entries()) {
    const before = timed.slice(0, i).filter((p) => p.status !== 'not run');
    const parent = r.within
      ? before.findLast((p) => scriptOf(p.part) === r.within)
      : before.findLast((p) => p.start <= r.start && r.end <= p.end && !p.within);
    (parent ? parent.children : roots).push(r);
  }
  const top = roots.filter((r) => r.status !== 'not run');
  const lines = [];
  const print = (r, depth) => {
    const ran = r.status !== 'not run';
    lines.push({ part: '  '.repeat(depth) + r.part, time: ran ? duration(r.end - r.start) : '-', r });
    for (const child of r.children) print(child, depth + 1);
  };
  for (const r of roots) print(r, 0);
  for (const r of untimed) lines.push({ part: r.part, time: '-', r });

  const failed = top.find((r) => r.status !== '0');
  const total =
    top.length === 0 ? '-' : duration(Math.max(...top.map((r) => r.end)) - Math.min(...top.map((r) => r.start)));

  const body = lines.map(({ part, time, r }) => [part, time, result(r.status), note(r, scripts)]);
  const head = ['part', 'time', 'result', 'note'];
  const foot = ['total', total, failed ? `${result(failed.status)} in ${failed.part}` : 'ok', ''];
  const width = [0, 1, 2].map((i) => Math.max(...[head, ...body, foot].map((cells) => cells[i].length)));
  const format = (cells) =>
    [cells[0].padEnd(width[0]), cells[1].padStart(width[1]), cells[2].padEnd(width[2]), cells[3]].join('  ').trimEnd();
  const rule = width.map((w) => '-'.repeat(w)).join('  ');
  return ['', 'time of each part:', format(head), rule, ...body.map(format), rule, format(foot), ''].join('\n');
}

function result(status) {
  if (status === '0') return 'ok';
  if (status === 'not run') return 'not run';
  return /^\d+$/.test(status) ? `FAILED (exit ${status})` : `FAILED (${status})`;
}

/** `test` for `npm test`, `lint` for `npm run lint`; undefined for a part that is no npm script. */
function scriptOf(part) {
  return /^npm (?:run(?:-script)? )?([\w:.-]+)$/.exec(part)?.[1];
}

function note(r, scripts) {
  if (r.note) return r.note;
  const script = scriptOf(r.part);
  const command = script === undefined ? undefined : scripts[script];
  return typeof command === 'string' && !/&&|\|\||;/.test(command) ? command : '';
}

/** 8.3 s, 12 min 04.0 s */
function duration(seconds) {
  const tenths = Math.round(Math.max(0, seconds) * 10);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const rest = ((tenths % 600) / 10).toFixed(1).padStart(4, '0');
  return `${Math.floor(tenths / 600)} min ${rest} s`;
}

function packageScripts() {
  try {
    return JSON.parse(readFileSync('package.json', 'utf8')).scripts ?? {};
  } catch {
    return {};
  }
}
