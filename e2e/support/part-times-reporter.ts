import { appendFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/**
 * Playwright's row of the part-times table `.ci/run` prints at its end (scripts/part-times.mjs):
 * the whole run's wall time (its global setup included), tests passed and failed. Written only when `.ci/run` sets
 * PART_TIMES_FILE; playwright.config.ts adds it beside the list reporter, whose output stays.
 */
export default class PartTimesReporter implements Reporter {
  // From when Playwright loaded its configuration: the global setup (the service) counts too.
  private readonly start = Date.now() / 1000;
  private passed = 0;
  private failed = 0;

  onTestEnd(_test: TestCase, result: TestResult): void {
    if (result.status === 'passed' || result.status === 'skipped') this.passed++;
    else if (result.retry === 0) this.failed++;
  }

  onEnd(result: FullResult): void {
    const file = process.env.PART_TIMES_FILE;
    if (!file) return;
    const status = result.status === 'passed' ? '0' : `${result.status}`;
    const note = `${this.passed} passed${this.failed ? `, ${this.failed} failed` : ''}`;
    // Within the npm script Playwright runs in (`test:e2e`): the table nests the row there.
    const within = process.env.npm_lifecycle_event ?? '';
    appendFileSync(file, `${this.start}\t${Date.now() / 1000}\t${status}\tplaywright\t${note}\t${within}\n`);
  }
}
