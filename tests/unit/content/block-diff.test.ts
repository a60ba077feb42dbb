import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffArticleZones, diffBlocks, inlineEdits, type BlockChange } from '@/server/content/block-diff';
import { workBudget } from '@/server/content/sequence-diff';
import { tableDiff } from '../../support/table-diff';

const kept = (changes: BlockChange[], side: 'removed' | 'added') =>
  changes.filter((c) => c.kind === 'same' || c.kind === side).map((c) => c.html);

/** Blocks from a small alphabet, so sequences share elements (and repeat them) often. */
const blocks = fc.array(fc.constantFrom('<p>a</p>', '<p>b</p>', '<p>c</p>', '<h2>d</h2>', '<hr>', 'e'), {
  maxLength: 40,
});

/** Two sequences of `n` random blocks each: nearly nothing in common in the same order. */
function unrelated(n: number): [string[], string[]] {
  let x = 7;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648);
  const make = () => Array.from({ length: n }, () => `<p>w${next() % 5000}</p>`);
  return [make(), make()];
}

describe('diffBlocks (bounded)', () => {
  it('for any two sequences, same+added blocks are the new one and same+removed the old one', () => {
    fc.assert(
      fc.property(blocks, blocks, (before, after) => {
        const changes = diffBlocks(before, after, workBudget())!;
        expect(kept(changes, 'added')).toEqual(after);
        expect(kept(changes, 'removed')).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('is a shortest edit script: it keeps as many blocks as the longest common subsequence of the full table', () => {
    fc.assert(
      fc.property(blocks, blocks, (before, after) => {
        const myers = diffBlocks(before, after, workBudget())!;
        const table = tableDiff(before, after);
        expect(myers.filter((c) => c.kind === 'same').length).toBe(table.filter((c) => c.kind === 'same').length);
        // Each changed run reads "this became that": its removed blocks first.
        for (let k = 1; k < myers.length; k++)
          expect(myers[k - 1]!.kind === 'added' && myers[k]!.kind === 'removed').toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('answers null past its work budget, having spent about the budget and no more', () => {
    const [before, after] = unrelated(60_000);
    const work = workBudget();
    expect(diffBlocks(before, after, work)).toBeNull();
    expect(work.left).toBeLessThan(0);
    // The overshoot is at most one round of the search: a few times the input's length.
    expect(-work.left).toBeLessThan(4 * (before.length + after.length));
  });

  it('marks a few edits in a document of 60,000 blocks within the budget', () => {
    const [before] = unrelated(60_000);
    const after = before.slice();
    for (let k = 0; k < 40; k++) after[(k * 1499) % after.length] = `<p>edited ${k}</p>`;
    after.splice(30_000, 0, '<p>inserted</p>');
    const work = workBudget();
    const changes = diffBlocks(before, after, work)!;
    expect(kept(changes, 'added')).toEqual(after);
    expect(kept(changes, 'removed')).toEqual(before);
    expect(changes.filter((c) => c.kind !== 'same')).toHaveLength(81);
    expect(work.left).toBeGreaterThan(0);
  });
});

describe('inlineEdits (bounded)', () => {
  const paragraph = (words: string[]) => `<p>${words.join(' ')}</p>`;
  const text = Array.from({ length: 4000 }, (_, k) => `w${(k * 7919) % 3001}`);

  it('marks the words changed in a paragraph of 4,000 words', () => {
    const edited = text.slice();
    edited[2000] = 'CHANGED';
    const [change] = inlineEdits([
      { kind: 'removed', html: paragraph(text) },
      { kind: 'added', html: paragraph(edited) },
    ]);
    expect(change!.kind).toBe('changed');
    expect(change!.html).toContain(
      `<del class="dp-diff-word">${text[2000]}</del><ins class="dp-diff-word">CHANGED</ins>`,
    );
  });

  it('marks only the full stop of "5." → "5", not the number as removed and added', () => {
    const [change] = inlineEdits([
      { kind: 'removed', html: '<p>Step 5. Then wait.</p>' },
      { kind: 'added', html: '<p>Step 5 Then wait.</p>' },
    ]);
    expect(change).toEqual({ kind: 'changed', html: '<p>Step 5<del class="dp-diff-word">.</del> Then wait.</p>' });
  });

  it('never cuts a character reference: "&amp;" is one token', () => {
    const [change] = inlineEdits([
      { kind: 'removed', html: '<p>salt &amp; pepper</p>' },
      { kind: 'added', html: '<p>salt &lt; pepper</p>' },
    ]);
    expect(change!.html).toBe(
      '<p>salt <del class="dp-diff-word">&amp;</del><ins class="dp-diff-word">&lt;</ins> pepper</p>',
    );
  });

  it('past the budget shows a rewritten paragraph as removed and added, without word marks', () => {
    const rewritten = text.map((w) => `x${w}`);
    expect(
      inlineEdits(
        [
          { kind: 'removed', html: paragraph(text) },
          { kind: 'added', html: paragraph(rewritten) },
        ],
        workBudget(10_000),
      ),
    ).toEqual([
      { kind: 'removed', html: paragraph(text) },
      { kind: 'added', html: paragraph(rewritten) },
    ]);
  });
});

describe('diffArticleZones', () => {
  it('reports a body that differs past the budget as changed (null), and still marks cover and tags', () => {
    const [before, after] = unrelated(20_000);
    const zones = diffArticleZones(
      { cover: '', body: before.join('\n'), tags: '<ul class="dp-article__tags"><li>a</li></ul>' },
      { cover: '<img src="/c.webp">', body: after.join('\n'), tags: '<ul class="dp-article__tags"><li>a</li></ul>' },
    );
    expect(zones.body).toBeNull();
    expect(zones.cover).toEqual([{ kind: 'added', html: '<img src="/c.webp">' }]);
    expect(zones.tags.map((c) => c.kind)).toEqual(['same']);
  });
});
