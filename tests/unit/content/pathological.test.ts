/**
 * Adversarial input through the worker pool: every pathological case of the corpus and the
 * hand-written adversarial patterns at 10 and 80 KB is converted or refused with a
 * ContentRejectedError naming the problem — never another error, never a crashed pool. Timing is the bench's business.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../server/foundation/concurrency-limit';
import { ContentRejectedError, type ContentPool } from '../../../server/content';
import { testContentPool } from '../../support/content-pool';
import { ADVERSARIAL_PATTERNS, pathologicalCases } from './corpus';

const cases = [
  ...pathologicalCases(),
  ...Object.entries(ADVERSARIAL_PATTERNS).flatMap(([name, build]) =>
    [10, 80].map((kb) => ({ name: `pattern: ${name} at ${kb} KB`, markdown: build(kb * 1000) })),
  ),
];

let pool: ContentPool;
beforeAll(() => {
  pool = testContentPool();
});

afterAll(async () => {
  await pool.close();
});

type Outcome = { name: string; converted: boolean; message?: string; unexpected?: unknown };

async function outcomeOf(name: string, markdown: string): Promise<Outcome> {
  try {
    const output = await pool.render({ markdown, title: 'T' }, name);
    expect(output.html.length).toBeGreaterThan(0);
    return { name, converted: true };
  } catch (error) {
    if (error instanceof ContentRejectedError) return { name, converted: false, message: error.message };
    return { name, converted: false, unexpected: error };
  }
}

describe(`pathological corpus (${cases.length} inputs) through the worker pool`, () => {
  it('converts or refuses every input with a message naming the problem', async () => {
    // Two at a time, each under its own owner: the pool's queue is bounded and counts waiting
    // inside the budget, so 72 documents sent at once would be refused as busy, not converted.
    const slots = new ConcurrencyLimit(2);
    const outcomes = await Promise.all(cases.map((c) => slots.run(() => outcomeOf(c.name, c.markdown))));
    const unexpected = outcomes
      .filter((o) => o.unexpected !== undefined)
      .map((o) => `${o.name}: ${String(o.unexpected)}`);
    expect(unexpected).toEqual([]);
    for (const outcome of outcomes.filter((o) => !o.converted)) {
      expect(outcome.message, outcome.name).toMatch(
        /^markdown: (nesting too deep|too many .+ in one paragraph|too complex to convert within the (time|memory) budget|document too large)/,
      );
    }
    // The prescan answers the deep-nesting shapes by name, not by running out the clock.
    const byName = new Map(outcomes.map((o) => [o.name, o]));
    for (const name of [
      'nested brackets',
      'nested block quotes',
      'deeply nested lists',
      'pattern: nested > blockquotes at 10 KB',
    ]) {
      expect(byName.get(name)?.message, name).toMatch(/^markdown: nesting too deep/);
    }
  }, 600_000);

  it('keeps serving ordinary documents after workers were terminated for overrunning', async () => {
    const output = await pool.render({ markdown: '# Still here\n\nfine', title: 'T' });
    expect(output.html).toBe('<h1>Still here</h1>\n<p>fine</p>');
  });

  it('reports an empty document as a rejection, not a fault', async () => {
    await expect(pool.render({ markdown: '<script>x</script>', title: 'T' })).rejects.toThrow(
      'markdown: document is empty after conversion',
    );
  });
});
