import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { textStats, WORDS_PER_MINUTE } from '@/app/console/articles/[id]/text-stats';

/** The editor's word count and reading time (app/console/articles/[id]/text-stats.ts). */
describe('word count and reading time', () => {
  it('counts the words a reader reads, not markup or addresses', () => {
    expect(textStats('')).toEqual({ words: 0, minutes: 0 });
    expect(textStats('The lamp was lit at dusk.\n\nA ship passed at midnight.')).toEqual({ words: 11, minutes: 1 });
    expect(textStats("# Don't panic\n\n**Well-known** _words_, `code` too.").words).toBe(6);
    expect(textStats('See [the harbour](https://example.com/a/very/long/path?x=1 "Title") now.').words).toBe(4);
    expect(textStats('![A gull in flight](/media/abc.webp)').words).toBe(4);
    expect(textStats('<figure class="wide"><img src="/media/x.png" alt=""></figure> Two words').words).toBe(2);
    expect(textStats('Ünïcödé 東京 café — 42 — ...').words).toBe(4);
  });

  it('reads at 230 words a minute, rounded up', () => {
    expect(textStats('word '.repeat(WORDS_PER_MINUTE)).minutes).toBe(1);
    expect(textStats('word '.repeat(WORDS_PER_MINUTE + 1)).minutes).toBe(2);
  });

  it('counts n words separated by any blank or punctuation as n', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-zA-Z0-9]{1,8}$/), { maxLength: 50 }),
        fc.constantFrom(' ', '\n', ', ', '. ', ' — ', '\n\n- '),
        (words, gap) => {
          runs++;
          expect(textStats(words.join(gap)).words).toBe(words.length);
        },
      ),
    );
    expect(runs).toBeGreaterThan(0);
  });
});
