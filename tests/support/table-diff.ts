import type { BlockChange } from '../../server/content/block-diff';

/**
 * The console's publish diff before it was bounded: the full n×m LCS table, walked with its tie
 * rule. The reference the bounded diff must equal on ordinary sizes (tests/unit/content) and the
 * cost it replaced (bench/publish-diff.ts); quadratic in time and memory, so never in the service.
 */
export function tableDiff(before: string[], after: string[]): BlockChange[] {
  const n = before.length;
  const m = after.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = before[i] === after[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: BlockChange[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push({ kind: 'same', html: before[i]! });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) out.push({ kind: 'added', html: after[j++]! });
    else out.push({ kind: 'removed', html: before[i++]! });
  }
  return out;
}
