/**
 * A shortest edit script between two sequences of strings (blocks of an article, words of a
 * paragraph) in memory linear in their length and within a bounded amount of work, so a diff
 * of two huge or hostile documents ends quickly with "too much changed" instead of building an
 * n×m table (60,000 blocks against 60,000 is 3.6e9 cells).
 *
 * - Elements are interned to integers first, so comparing two paragraphs costs one comparison.
 * - The common prefix is taken as it is. When what is left is small (EXACT_CELLS), the
 *   longest-common-subsequence table is walked exactly as the console always did (on a tie the
 *   old element goes first), so ordinary edits read the same as before.
 * - Otherwise the common suffix is taken too and the middle is diffed with Myers' O(ND)
 *   algorithm in its linear-space form (the middle snake, then each half), charging every
 *   step to a `WorkBudget`. Each run of changes is written removed-first, so it reads "this
 *   became that".
 *
 * Past the budget the answer is null: the caller says the sequences differ, without marks.
 */

const SAME = 0;
export const REMOVED = 1;
export const ADDED = 2;
export type Step = typeof SAME | typeof REMOVED | typeof ADDED;

/** Work left, in elementary steps (a comparison, a table cell, a diagonal's move), shared by several diffs. */
export interface WorkBudget {
  left: number;
}

/**
 * About 100-300 ms of one core: enough for any real article's edits (an edit script of a few
 * thousand blocks between documents of tens of thousands), never seconds.
 */
const DIFF_WORK = 5_000_000;

/** Largest table (cells) walked exactly; 2 bytes a cell (lengths fit in 16 bits below it). */
const EXACT_CELLS = 1 << 20;

export function workBudget(steps = DIFF_WORK): WorkBudget {
  return { left: steps };
}

/**
 * The steps turning `before` into `after`, in order (`SAME` consumes one element of each,
 * `REMOVED` one of `before`, `ADDED` one of `after`), or null once `work` is spent.
 */
export function diffSequences(
  before: readonly string[],
  after: readonly string[],
  work: WorkBudget,
  exactCells = EXACT_CELLS,
): Step[] | null {
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
  const a = Int32Array.from(before, intern);
  const b = Int32Array.from(after, intern);
  const steps: Step[] = [];
  let p = 0;
  while (p < n && p < m && a[p] === b[p]) {
    steps.push(SAME);
    p++;
  }
  if ((n - p) * (m - p) <= Math.min(exactCells, EXACT_CELLS)) {
    work.left -= (n - p) * (m - p);
    if (work.left < 0) return null;
    tableWalk(a, b, p, steps);
    return steps;
  }
  const middle: Step[] = [];
  if (!myers(a, p, n, b, p, m, middle, work)) return null;
  for (const step of removedFirst(middle)) steps.push(step);
  return steps;
}

/** The console's original walk of the LCS table, from `p` on (the prefix before it is equal). */
function tableWalk(a: Int32Array, b: Int32Array, p: number, out: Step[]): void {
  const n = a.length - p;
  const m = b.length - p;
  const w = m + 1;
  const lcs = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[p + i] === b[p + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[p + i] === b[p + j]) {
      out.push(SAME);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i * w + j + 1]! > lcs[(i + 1) * w + j]!)) {
      out.push(ADDED);
      j++;
    } else {
      out.push(REMOVED);
      i++;
    }
  }
}

/** Appends the steps from a[aLo, aHi) to b[bLo, bHi); false once the budget is spent. */
function myers(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  out: Step[],
  work: WorkBudget,
): boolean {
  let start = aLo;
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    out.push(SAME);
    aLo++;
    bLo++;
  }
  let suffix = 0;
  while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
    suffix++;
  }
  work.left -= aLo - start + suffix + 1;
  if (work.left < 0) return false;
  if (aLo === aHi) for (let j = bLo; j < bHi; j++) out.push(ADDED);
  else if (bLo === bHi) for (let i = aLo; i < aHi; i++) out.push(REMOVED);
  else {
    const split = middleSnake(a, aLo, aHi, b, bLo, bHi, work);
    if (split === null) return false;
    if (split === 'disjoint') {
      for (let i = aLo; i < aHi; i++) out.push(REMOVED);
      for (let j = bLo; j < bHi; j++) out.push(ADDED);
    } else if (
      !myers(a, aLo, split[0], b, bLo, split[1], out, work) ||
      !myers(a, split[0], aHi, b, split[1], bHi, out, work)
    )
      return false;
  }
  for (start = 0; start < suffix; start++) out.push(SAME);
  return true;
}

/**
 * A point on a shortest edit path of a[aLo, aHi) → b[bLo, bHi), found by searching from both
 * ends at once until the paths meet (Myers 1986, section 4b; the bookkeeping follows
 * diff-match-patch's bisect). Two arrays of n + m integers; null once the budget is spent.
 */
function middleSnake(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  work: WorkBudget,
): [number, number] | 'disjoint' | null {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.ceil((n + m) / 2);
  const offset = maxD;
  const length = 2 * maxD + 2;
  // Counted in a local (the hot loop), written back whenever the search ends.
  let left = work.left - length;
  const result = search();
  work.left = left;
  return result;

  function search(): [number, number] | 'disjoint' | null {
    if (left < 0) return null;
    const v1 = new Int32Array(length).fill(-1);
    const v2 = new Int32Array(length).fill(-1);
    v1[offset + 1] = 0;
    v2[offset + 1] = 0;
    const delta = n - m;
    // With an odd delta the forward search meets the reverse one; with an even one, the reverse.
    const front = delta % 2 !== 0;
    let k1start = 0;
    let k1end = 0;
    let k2start = 0;
    let k2end = 0;
    for (let d = 0; d < maxD; d++) {
      if (left < 0) return null;
      for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const k1Offset = offset + k1;
        let x1 =
          k1 === -d || (k1 !== d && v1[k1Offset - 1]! < v1[k1Offset + 1]!) ? v1[k1Offset + 1]! : v1[k1Offset - 1]! + 1;
        let y1 = x1 - k1;
        const from = x1;
        while (x1 < n && y1 < m && a[aLo + x1] === b[bLo + y1]) {
          x1++;
          y1++;
        }
        left -= 1 + x1 - from;
        v1[k1Offset] = x1;
        if (x1 > n) k1end += 2;
        else if (y1 > m) k1start += 2;
        else if (front) {
          const k2Offset = offset + delta - k1;
          if (k2Offset >= 0 && k2Offset < length && v2[k2Offset] !== -1 && x1 >= n - v2[k2Offset]!)
            return [aLo + x1, bLo + y1];
        }
      }
      for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const k2Offset = offset + k2;
        let x2 =
          k2 === -d || (k2 !== d && v2[k2Offset - 1]! < v2[k2Offset + 1]!) ? v2[k2Offset + 1]! : v2[k2Offset - 1]! + 1;
        let y2 = x2 - k2;
        const from = x2;
        while (x2 < n && y2 < m && a[aHi - x2 - 1] === b[bHi - y2 - 1]) {
          x2++;
          y2++;
        }
        left -= 1 + x2 - from;
        v2[k2Offset] = x2;
        if (x2 > n) k2end += 2;
        else if (y2 > m) k2start += 2;
        else if (!front) {
          const k1Offset = offset + delta - k2;
          if (k1Offset >= 0 && k1Offset < length && v1[k1Offset] !== -1) {
            const x1 = v1[k1Offset]!;
            const y1 = offset + x1 - k1Offset;
            if (x1 >= n - x2) return [aLo + x1, bLo + y1];
          }
        }
      }
    }
    // No common element at all: everything old goes, everything new comes.
    return 'disjoint';
  }
}

/** Each run of changes between two equal elements rewritten as its removals, then its additions. */
function removedFirst(steps: Step[]): Step[] {
  const out: Step[] = [];
  let removed = 0;
  let added = 0;
  const flush = () => {
    for (; removed > 0; removed--) out.push(REMOVED);
    for (; added > 0; added--) out.push(ADDED);
  };
  for (const step of steps) {
    if (step === REMOVED) removed++;
    else if (step === ADDED) added++;
    else {
      flush();
      out.push(SAME);
    }
  }
  flush();
  return out;
}
