/**
 * The table `.ci/run` prints at its end (scripts/part-times.mjs), run as `.ci/run` runs it: rows
 * of parts that ran side by side are siblings under the script they ran within, rows without a
 * `within` nest under the row whose span holds them, and the total and the failure come from the
 * top rows.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'part-times-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function table(rows: (string | number)[][]): string[] {
  const file = path.join(dir, `rows-${Math.random().toString(36).slice(2)}.tsv`);
  writeFileSync(file, rows.map((r) => r.join('\t')).join('\n') + '\n');
  const out = execFileSync(process.execPath, ['scripts/part-times.mjs', file], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.trim() !== '');
}

/** The part column of the table's body, indentation kept. */
const parts = (lines: string[]) => lines.slice(3, -2).map((line) => line.split(/(?<=\S)\s{2,}/)[0]!);

describe('the part-times table', () => {
  it('puts parts that ran side by side under the script they ran within, in the order they started', () => {
    const lines = table([
      [1000, 1030, 0, 'npm ci', ''],
      [1030, 1070, 0, 'npm run lint', ''],
      [1030.1, 1069, 0, 'npm run lint:eslint', '', 'lint'],
      [1030.2, 1050, 0, 'npm run lint:types', '', 'lint'],
      [1070, 1700, 0, 'npm test', ''],
      [1071, 1095, 0, 'npm run build', '', 'test'],
      [1095, 1690, 0, 'npm run test:unit', '', 'test'],
      [1095.1, 1650, 0, 'npm run test:e2e', '', 'test'],
      [1096, 1106, 0, 'vitest start-up', '', 'test:unit'],
      [1099, 1640, 0, 'playwright', '92 passed', 'test:e2e'],
      [1106, 1680, 0, 'vitest integration', '49 files', 'test:unit'],
      [1107, 1200, 0, 'vitest unit', '73 files', 'test:unit'],
    ]);
    expect(parts(lines)).toEqual([
      'npm ci',
      'npm run lint',
      '  npm run lint:eslint',
      '  npm run lint:types',
      'npm test',
      '  npm run build',
      '  npm run test:unit',
      '    vitest start-up',
      '    vitest integration',
      '    vitest unit',
      '  npm run test:e2e',
      '    playwright',
    ]);
    expect(lines.at(-1)).toMatch(/^total\s+11 min 40\.0 s\s+ok$/);
  });

  it('nests a row without `within` under the row whose span holds it, and names the failed part', () => {
    const lines = table([
      [0, 10, 0, 'npm ci', ''],
      [10, 100, 2, 'npm test', ''],
      [11, 50, 'a file failed', 'vitest unit', ''],
      [100.5, 100.5, 'not run', 'npm run later', ''],
    ]);
    expect(parts(lines)).toEqual(['npm ci', 'npm test', '  vitest unit', 'npm run later']);
    expect(lines.at(-1)).toMatch(/^total\s+1 min 40\.0 s\s+FAILED \(exit 2\) in npm test$/);
  });
});
