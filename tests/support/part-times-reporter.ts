import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule, Vite, VitestPluginContext } from 'vitest/node';

/**
 * Why this file exists: `.ci/run` ends with a table of how long each part of the
 * README's test line took, and inside `npm run test:unit` that table shows each vitest project.
 * The rows for the projects come from here.
 *
 * `partTimes` is a Vite plugin listed in every project of vitest.config.ts (a plugin of the root
 * config would not reach the projects, which do not extend it). When PART_TIMES_FILE is set (only
 * `.ci/run` sets it), its `configureVitest` hook adds `PartTimesReporter` to the reporters Vitest
 * has already resolved, so the console output stays what it would have been (the default
 * reporter, or whatever Vitest picks or `--reporter` asks for). Unset: nothing is added, nothing
 * is written.
 *
 * At the end of the run the reporter appends to that file one row per project and one for the
 * start-up, in the format `.ci/run` and its shell shim write too and scripts/part-times.mjs prints:
 *
 *   start <TAB> end <TAB> status <TAB> part <TAB> note <TAB> within
 *
 * start and end in Unix seconds; status `0` when the part passed, else what failed; within: the
 * npm script vitest runs in (`test:unit`), under whose row the table nests these.
 *
 * - `vitest start-up`: from the start of the run to the first test file's start: every selected
 *   project's globalSetup (Vitest runs them all, one after the other, before any file; domain's
 *   starts PostgreSQL, integration's the service) and the first workers' start.
 * - `vitest <project>`: wall time from the project's first file's start (the worker begins to
 *   import it) to its last file's end, as this process sees them. The projects run together
 *   (vitest.config.ts), so their spans overlap. The note adds the files, the tests, and the
 *   sum of the files' test time (tests and hooks, `diagnostic().duration`), which counts every
 *   worker and so can exceed the wall time.
 */
class PartTimesReporter implements Reporter {
  private runStart = 0;
  private readonly spans = new Map<string, { start: number; end: number }>();

  constructor(private readonly file: string) {}

  onTestRunStart() {
    this.runStart = Date.now();
    this.spans.clear();
  }

  onTestModuleQueued(testModule: TestModule) {
    const now = Date.now();
    const span = this.spans.get(testModule.project.name);
    if (span) span.start = Math.min(span.start, now);
    else this.spans.set(testModule.project.name, { start: now, end: now });
  }

  onTestModuleEnd(testModule: TestModule) {
    const span = this.spans.get(testModule.project.name);
    if (span) span.end = Math.max(span.end, Date.now());
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const rows: string[] = [];
    const starts = [...this.spans.values()].map((span) => span.start);
    if (this.runStart > 0 && starts.length > 0) {
      rows.push(
        row(
          this.runStart,
          Math.min(...starts),
          '0',
          'vitest start-up',
          'globalSetup of the projects run, first workers',
        ),
      );
    }
    for (const [project, span] of this.spans) {
      const modules = testModules.filter((m) => m.project.name === project);
      const tests = modules.flatMap((m) => [...m.children.allTests()]);
      const failedTests = tests.filter((t) => t.result().state === 'failed').length;
      const failedFiles = modules.filter((m) => !m.ok()).length;
      const testTime = modules.reduce((sum, m) => sum + m.diagnostic().duration, 0) / 1000;
      const status =
        failedFiles === 0
          ? '0'
          : failedTests > 0
            ? `${count(failedTests, 'test')} failed`
            : 'a file failed outside its tests (import or hook)';
      const note =
        `${count(modules.length, 'file')}, ${count(tests.length, 'test')}` +
        (failedTests > 0 ? ` (${failedTests} failed)` : '') +
        `; files' test time ${testTime.toFixed(1)} s`;
      rows.push(row(span.start, span.end, status, `vitest ${project}`, note));
    }
    if (rows.length > 0) appendFileSync(this.file, rows.join(''));
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** One line of the part-times file; times in milliseconds, written in seconds. */
function row(start: number, end: number, status: string, part: string, note: string): string {
  const field = (text: string) => text.replace(/[\t\r\n]+/g, ' ');
  const within = process.env.npm_lifecycle_event ?? '';
  return `${start / 1000}\t${end / 1000}\t${field(status)}\t${field(part)}\t${field(note)}\t${within}\n`;
}

/** For every project of vitest.config.ts: adds the reporter once when PART_TIMES_FILE is set. */
export const partTimes: Vite.Plugin = {
  name: 'part-times',
  configureVitest({ vitest }: VitestPluginContext) {
    const file = process.env.PART_TIMES_FILE;
    if (!file || vitest.config.reporters.some((r) => r instanceof PartTimesReporter)) return;
    vitest.config.reporters.push(new PartTimesReporter(file));
  },
};
