/**
 * Publish diff bench, run with `npx tsx bench/publish-diff.ts`: the bounded block diff
 * (server/content/block-diff.ts on jsdiff's Myers diff, bounded by sequence-diff.ts) against the
 * full LCS table the console used before, interleaved over the same inputs, in this thread (the
 * service runs it in the worker pool). Also the work each case spent of the fixed budget: past
 * it the diff stops, so even two unrelated maximum-size bodies cost a bounded amount.
 *
 * Cases: the security review's (3,000 paragraphs published against 12,000 in the working
 * version; one paragraph of 4,000 words edited in place), an ordinary edit of a long article,
 * and two maximum-size bodies (60,000 paragraphs) that differ everywhere, which the table could
 * not hold (3.6e9 cells): the bounded diff answers "the body changed" there.
 * Reported: median ms of each, and bounded/table.
 */
import { diffArticleZones, diffBlocks, inlineEdits, splitBlocks } from '../server/content/block-diff';
import { workBudget } from '../server/content/sequence-diff';
import { tableDiff } from '../tests/support/table-diff';

const RUNS = 3;

let seed = 1;
const word = () => `w${(seed = (seed * 1103515245 + 12345) % 2147483648) % 100_000}`;
const paragraph = (words: number) => `<p>${Array.from({ length: words }, word).join(' ')}</p>`;
const body = (paragraphs: number) => Array.from({ length: paragraphs }, () => paragraph(4)).join('\n');

const published3k = body(3000);
const working12k = `${published3k}\n${body(9000)}`;
const long = Array.from({ length: 4000 }, word);
const edited = long.slice();
edited[1000] = 'changed';
edited[3000] = 'also';
const article = body(2000);
const articleEdited = article.replace(/<p>[^<]*<\/p>/, '<p>A new first paragraph.</p>');
const max1 = body(60_000);
const max2 = body(60_000);

/** The table's input: blocks, or the words of the one paragraph (the old in-place word diff). */
const words = (html: string) => html.replace(/^<p>|<\/p>$/g, '').match(/\s+|[^\s]+/g) ?? [];

const cases: { name: string; before: string; after: string; table: boolean; split?: (html: string) => string[] }[] = [
  { name: '3,000 → 12,000 paragraphs', before: published3k, after: working12k, table: true },
  {
    name: 'a 4,000-word paragraph edited',
    before: `<p>${long.join(' ')}</p>`,
    after: `<p>${edited.join(' ')}</p>`,
    table: true,
    split: words,
  },
  { name: '2,000 paragraphs, first one edited', before: article, after: articleEdited, table: true },
  { name: '60,000 → 60,000 other paragraphs', before: max1, after: max2, table: false },
];

const time = (f: () => unknown) => {
  const started = performance.now();
  f();
  return performance.now() - started;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const BUDGET = workBudget().left;

/** Steps of the budget one diff of the body spends (blocks, then words of blocks edited in place). */
function workSpent(before: string, after: string): number {
  const work = workBudget();
  const blocks = diffBlocks(splitBlocks(before), splitBlocks(after), work);
  if (blocks) inlineEdits(blocks, work);
  return BUDGET - work.left;
}

console.log(
  `| case | table (ms) | bounded (ms) | bounded/table | body marked | work spent (budget ${BUDGET.toLocaleString('en')}) |`,
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const c of cases) {
  const bounded: number[] = [];
  const full: number[] = [];
  let marked = false;
  for (let run = 0; run < RUNS; run++) {
    // Interleaved: each run measures both, so load on the machine hits them alike.
    const split = c.split ?? splitBlocks;
    if (c.table) full.push(time(() => tableDiff(split(c.before), split(c.after))));
    bounded.push(
      time(() => {
        marked =
          diffArticleZones({ cover: '', body: c.before, tags: '' }, { cover: '', body: c.after, tags: '' }).body !==
          null;
      }),
    );
  }
  const t = c.table ? median(full) : NaN;
  const b = median(bounded);
  console.log(
    `| ${c.name} | ${c.table ? t.toFixed(0) : 'not run (3.6e9 cells)'} | ${b.toFixed(0)} | ${c.table ? (b / t).toFixed(2) : '-'} | ${marked ? 'yes' : 'no: "the body changed"'} | ${workSpent(c.before, c.after).toLocaleString('en')} |`,
  );
}
