import { diffArrays } from 'diff';

/**
 * A shortest edit script between two sequences of strings (blocks of an article, words of a
 * paragraph) within a bounded amount of work, so a diff of two huge or hostile documents ends
 * quickly with "too much changed" instead of running for seconds (60,000 blocks against 60,000
 * other ones). The edit script itself is jsdiff's Myers diff (`diffArrays`); this module only
 * bounds it and shapes its answer:
 *
 * - Elements are interned to integers first, so comparing two paragraphs costs one comparison.
 * - The common prefix and suffix are taken as they are (linear), so Myers sees only the middle.
 * - Every comparison jsdiff makes is charged to a `WorkBudget`; Myers' search visits a diagonal
 *   only to compare along it, so comparisons count its work. When the budget is spent the
 *   search is abandoned and the answer is null: the caller says the sequences differ, without
 *   marks. bench/publish-diff.ts shows the work stays bounded.
 * - Each run of changes is written removed-first, so it reads "this became that".
 */

const SAME = 0;
export const REMOVED = 1;
export const ADDED = 2;
export type Step = typeof SAME | typeof REMOVED | typeof ADDED;

/** Work left, in elementary steps (an element read, a comparison), shared by several diffs. */
export interface WorkBudget {
  left: number;
}

/**
 * At most about a second of one core (bench/publish-diff.ts): enough for any real article's edits (an edit script of a
 * thousand blocks between documents of tens of thousands), never seconds.
 */
const DIFF_WORK = 2_500_000;

export function workBudget(steps = DIFF_WORK): WorkBudget {
  return { left: steps };
}

/** Thrown from jsdiff's comparator to abandon its search once the budget is spent. */
const SPENT = Symbol('diff work spent');

/**
 * The steps turning `before` into `after`, in order (`SAME` consumes one element of each,
 * `REMOVED` one of `before`, `ADDED` one of `after`), or null once `work` is spent.
 */
export function diffSequences(before: readonly string[], after: readonly string[], work: WorkBudget): Step[] | null {
  const n = before.length;
  const m = after.length;
  work.left -= n + m;
  if (work.left < 0) return null;
  const ids = new Map<string, number>();
  const intern = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = ids.size));
    return id;
  };
  const a = before.map(intern);
  const b = after.map(intern);

  let prefix = 0;
  while (prefix < n && prefix < m && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] === b[m - 1 - suffix]) suffix++;

  let changes: ReturnType<typeof diffArrays<number>>;
  try {
    changes = diffArrays(a.slice(prefix, n - suffix), b.slice(prefix, m - suffix), {
      comparator: (x: number, y: number) => {
        if (--work.left < 0) throw SPENT;
        return x === y;
      },
    });
  } catch (err) {
    if (err === SPENT) return null;
    throw err;
  }

  const steps: Step[] = new Array<Step>(prefix).fill(SAME);
  let removed = 0;
  let added = 0;
  const flush = () => {
    for (; removed > 0; removed--) steps.push(REMOVED);
    for (; added > 0; added--) steps.push(ADDED);
  };
  for (const change of changes) {
    if (change.removed) removed += change.count;
    else if (change.added) added += change.count;
    else {
      flush();
      for (let k = 0; k < change.count; k++) steps.push(SAME);
    }
  }
  flush();
  for (let k = 0; k < suffix; k++) steps.push(SAME);
  return steps;
}
