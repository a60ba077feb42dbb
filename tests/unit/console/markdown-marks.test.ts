import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  applyEdit,
  markEdit,
  type InlineMark,
  type LineMark,
  type Mark,
} from '@/app/console/articles/[id]/markdown-marks';

/** The Markdown the editor's toolbar and shortcuts write (app/console/articles/[id]/markdown-marks.ts). */

/** Applies `mark` to `text` with `from`–`to` selected: the new text and what it selects. */
function mark(text: string, from: number, to: number, m: Mark) {
  const edit = markEdit(text, from, to, m);
  const after = applyEdit(text, edit);
  return { after, edit, selection: edit.selection, selected: after.slice(edit.selection.from, edit.selection.to) };
}

/** `mark` with the selection given as the text `selected` at its first place in `text`. */
function markOn(text: string, selected: string, m: Mark) {
  const at = text.indexOf(selected);
  expect(at).toBeGreaterThanOrEqual(0);
  return mark(text, at, at + selected.length, m);
}

/** `mark` applied again, to the text and selection the first one left. */
function again(first: { after: string; selection: { from: number; to: number } }, m: Mark) {
  return mark(first.after, first.selection.from, first.selection.to, m);
}

describe('bold', () => {
  it('wraps the selection in ** and keeps it selected', () => {
    const bold = markOn('a word here', 'word', 'bold');
    expect(bold.after).toBe('a **word** here');
    expect(bold.selection).toEqual({ from: 4, to: 8 });
    expect(bold.selected).toBe('word');
  });

  it('with nothing selected, inserts **bold text** with "bold text" selected', () => {
    const bold = mark('ab', 1, 1, 'bold');
    expect(bold.after).toBe('a**bold text**b');
    expect(bold.selected).toBe('bold text');
    expect(mark('', 0, 0, 'bold').after).toBe('**bold text**');
  });

  it('leaves the spaces at the ends of the selection outside the marks', () => {
    const bold = markOn('a  word b', '  word ', 'bold');
    expect(bold.after).toBe('a  **word** b');
    expect(bold.selected).toBe('word');
    // Only spaces selected: the placeholder, after them.
    expect(mark('a   b', 1, 4, 'bold').after).toBe('a   **bold text**b');
  });

  it('takes the marks off when applied again, to the selection it left or to one including the marks', () => {
    const bold = markOn('a word here', 'word', 'bold');
    const off = again(bold, 'bold');
    expect(off.after).toBe('a word here');
    expect(off.selected).toBe('word');

    const withMarks = markOn('a **word** here', '**word**', 'bold');
    expect(withMarks.after).toBe('a word here');
    expect(withMarks.selected).toBe('word');
  });

  it('takes bold off a bold italic word, leaving the italic', () => {
    expect(markOn('a ***word*** here', 'word', 'bold').after).toBe('a *word* here');
    expect(markOn('a *word* here', 'word', 'bold').after).toBe('a ***word*** here');
  });

  it('selects in either direction alike', () => {
    expect(markEdit('a word here', 6, 2, 'bold')).toEqual(markEdit('a word here', 2, 6, 'bold'));
  });
});

describe('italic', () => {
  it('wraps the selection in *, inserts *italic text* with nothing selected, and toggles', () => {
    const italic = markOn('a word here', 'word', 'italic');
    expect(italic.after).toBe('a *word* here');
    expect(italic.selected).toBe('word');
    expect(again(italic, 'italic').after).toBe('a word here');
    expect(markOn('a *word* here', '*word*', 'italic').after).toBe('a word here');

    const empty = mark('', 0, 0, 'italic');
    expect(empty.after).toBe('*italic text*');
    expect(empty.selected).toBe('italic text');
  });

  it("inside a bold word wraps the selection, not taking the bold's stars for italic's", () => {
    const italic = markOn('a **word** here', 'word', 'italic');
    expect(italic.after).toBe('a ***word*** here');
    expect(italic.selected).toBe('word');
    // …and applied again takes the italic off, leaving the bold.
    const off = again(italic, 'italic');
    expect(off.after).toBe('a **word** here');
    expect(off.selected).toBe('word');

    // A selection of the bold word, stars and all, is wrapped in italic too, and toggles.
    const whole = markOn('a **word** here', '**word**', 'italic');
    expect(whole.after).toBe('a ***word*** here');
    expect(whole.selected).toBe('**word**');
    expect(again(whole, 'italic').after).toBe('a **word** here');
    expect(markOn('a ***word*** here', '***word***', 'italic').after).toBe('a **word** here');
  });
});

describe('code', () => {
  it('wraps the selection in backticks, inserts `code` with nothing selected, and toggles', () => {
    const code = markOn('run ls now', 'ls', 'code');
    expect(code.after).toBe('run `ls` now');
    expect(code.selected).toBe('ls');
    expect(again(code, 'code').after).toBe('run ls now');

    const empty = mark('x ', 2, 2, 'code');
    expect(empty.after).toBe('x `code`');
    expect(empty.selected).toBe('code');
  });

  it('uses a backtick run longer than any in the selection, padded when it starts or ends with one', () => {
    const one = markOn('say a`b ok', 'a`b', 'code');
    expect(one.after).toBe('say ``a`b`` ok');
    expect(one.selected).toBe('a`b');
    expect(again(one, 'code').after).toBe('say a`b ok');

    const two = markOn('say a``b`c ok', 'a``b`c', 'code');
    expect(two.after).toBe('say ```a``b`c``` ok');
    expect(again(two, 'code').after).toBe('say a``b`c ok');

    const starts = markOn('say `x ok', '`x', 'code');
    expect(starts.after).toBe('say `` `x `` ok');
    expect(starts.selected).toBe('`x');
    expect(again(starts, 'code').after).toBe('say `x ok');

    expect(markOn('say x` ok', 'x`', 'code').after).toBe('say `` x` `` ok');
  });

  it('makes a selection over several lines a fenced block on lines of its own', () => {
    const text = 'before\nfirst line\nsecond line\nafter';
    const block = mark(text, text.indexOf('line'), text.indexOf('second') + 3, 'code');
    expect(block.after).toBe('before\n```\nfirst line\nsecond line\n```\nafter');
    expect(block.selected).toBe('first line\nsecond line');

    // Whole lines (ending at the next line's start) and the first line of the text.
    const lines = mark('one\ntwo\nthree', 0, 8, 'code');
    expect(lines.after).toBe('```\none\ntwo\n```\nthree');
  });

  it('makes the fence longer than any backtick fence inside', () => {
    const text = 'Example:\n```js\nlet x = 1;\n```\nEnd';
    const block = mark(text, 0, text.length, 'code');
    expect(block.after).toBe('````\nExample:\n```js\nlet x = 1;\n```\nEnd\n````');
    expect(block.selected).toBe(text);

    const deeper = 'a\n`````\nb\n`````';
    expect(mark(deeper, 0, deeper.length, 'code').after).toBe('``````\na\n`````\nb\n`````\n``````');
  });
});

describe('link', () => {
  it('makes the selection the text of a link to https://, with "https://" selected', () => {
    const link = markOn('see the docs here', 'the docs', 'link');
    expect(link.after).toBe('see [the docs](https://) here');
    expect(link.selected).toBe('https://');
  });

  it('makes a selected address the target, with "link text" selected', () => {
    const link = markOn('go https://example.com/a?b=1 now', 'https://example.com/a?b=1', 'link');
    expect(link.after).toBe('go [link text](https://example.com/a?b=1) now');
    expect(link.selected).toBe('link text');
    expect(markOn('at http://x.org', 'http://x.org', 'link').after).toBe('at [link text](http://x.org)');
  });

  it('with nothing selected, inserts [link text](https://) with "link text" selected', () => {
    const link = mark('Read: ', 6, 6, 'link');
    expect(link.after).toBe('Read: [link text](https://)');
    expect(link.selected).toBe('link text');
  });
});

describe('line marks', () => {
  it('heading adds "## ", replacing another level rather than stacking, and toggles', () => {
    const heading = mark('Title', 2, 2, 'heading');
    expect(heading.after).toBe('## Title');
    expect(again(heading, 'heading').after).toBe('Title');

    expect(mark('# Title', 4, 4, 'heading').after).toBe('## Title');
    expect(mark('### Title', 4, 4, 'heading').after).toBe('## Title');
    expect(mark('# One\nTwo', 0, 9, 'heading').after).toBe('## One\n## Two');
    expect(mark('## One\n## Two', 0, 13, 'heading').after).toBe('One\nTwo');
  });

  it('quote adds "> " and toggles', () => {
    const quote = mark('To be\nor not', 0, 12, 'quote');
    expect(quote.after).toBe('> To be\n> or not');
    expect(quote.selected).toBe('> To be\n> or not');
    expect(again(quote, 'quote').after).toBe('To be\nor not');
  });

  it('bullets add "- " and toggle', () => {
    const bullets = mark('eggs\nmilk', 0, 9, 'bullets');
    expect(bullets.after).toBe('- eggs\n- milk');
    expect(again(bullets, 'bullets').after).toBe('eggs\nmilk');
    expect(mark('* eggs\n+ milk', 0, 13, 'bullets').after).toBe('eggs\nmilk');
  });

  it('numbers count 1. 2. 3. over the non-blank lines, and toggle', () => {
    const numbers = mark('one\ntwo\nthree', 0, 13, 'numbers');
    expect(numbers.after).toBe('1. one\n2. two\n3. three');
    expect(again(numbers, 'numbers').after).toBe('one\ntwo\nthree');
  });

  it('marks every line the selection touches, and only those', () => {
    const text = 'intro\nalpha\nbeta\ngamma\noutro';
    // From inside "alpha" to inside "gamma".
    const bullets = mark(text, text.indexOf('pha'), text.indexOf('mma'), 'bullets');
    expect(bullets.after).toBe('intro\n- alpha\n- beta\n- gamma\noutro');
    expect(bullets.selected).toBe('- alpha\n- beta\n- gamma');
    // A selection ending at a line's start (a triple click) does not touch that line.
    expect(mark(text, 6, 12, 'quote').after).toBe('intro\n> alpha\nbeta\ngamma\noutro');
  });

  it('skips blank lines in a selection of several lines', () => {
    const text = 'one\n\ntwo\n   \nthree';
    const numbers = mark(text, 0, text.length, 'numbers');
    expect(numbers.after).toBe('1. one\n\n2. two\n   \n3. three');
    expect(again(numbers, 'numbers').after).toBe(text);
    expect(mark(text, 0, text.length, 'quote').after).toBe('> one\n\n> two\n   \n> three');
  });

  it('takes the mark off only when every non-blank line has it', () => {
    expect(mark('- a\nb\n- c', 0, 9, 'bullets').after.split('\n')[1]).toBe('- b');
    expect(mark('- a\n\n- c', 0, 8, 'bullets').after).toBe('a\n\nc');
    expect(mark('1. a\n7) b', 0, 9, 'numbers').after).toBe('a\nb');
  });

  it('with a caret in a line, keeps the caret on the same character', () => {
    const text = 'one\ntwo words\nthree';
    const at = text.indexOf('words');
    for (const [m, prefix] of [
      ['heading', '## '],
      ['quote', '> '],
      ['bullets', '- '],
      ['numbers', '1. '],
    ] as const) {
      const on = mark(text, at, at, m);
      expect(on.after).toBe(`one\n${prefix}two words\nthree`);
      expect(on.selection.from).toBe(on.selection.to);
      expect(on.after.slice(on.selection.from)).toMatch(/^words\n/);
      const off = again(on, m);
      expect(off.after).toBe(text);
      expect(off.selection).toEqual({ from: at, to: at });
    }
    // Replacing a heading's level, too.
    const level = mark('# Title', 4, 4, 'heading');
    expect(level.after.slice(level.selection.from)).toBe('tle');
    // A caret in the mark being taken off goes to the line's start.
    expect(mark('x\n## Title', 3, 3, 'heading').selection).toEqual({ from: 2, to: 2 });
  });

  it('marks the first line of a text starting with a newline where the caret is', () => {
    const heading = mark('\nabc', 0, 0, 'heading');
    expect(heading.edit).toMatchObject({ from: 0, to: 0 });
    expect(heading.after).toBe('## \nabc');
    expect(heading.selection).toEqual({ from: 3, to: 3 });
    expect(mark('\nabc', 0, 1, 'bullets').after).toBe('- \nabc');
    expect(mark('\nabc', 0, 4, 'bullets').after).toBe('\n- abc');
    expect(mark('\nabc\ndef', 0, 8, 'code').after).toBe('```\n\nabc\ndef\n```');
  });
});

// ---- Properties ----

const MARKS: readonly Mark[] = ['bold', 'italic', 'code', 'link', 'heading', 'quote', 'bullets', 'numbers'];
const LINE_MARKS: readonly LineMark[] = ['heading', 'quote', 'bullets', 'numbers'];
const TOGGLED: readonly InlineMark[] = ['bold', 'italic', 'code'];

/** Characters that matter to the marks, plain ones, and any Unicode (astral and combining included). */
const anyChar = fc.oneof(
  fc.constantFrom('\n', '`', '*', ' ', '\t', '#', '>', '-', '+', '1', '.', ')', '[', ']', '(', 'h', 'https://'),
  fc.constantFrom('a', 'b', 'Z', '_', 'é', 'e\u0301', '中', '😀', '\u00a0', '\r\n'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const anyText = fc.string({ unit: anyChar, maxLength: 60 });

describe('every mark', () => {
  it('changes only its range, within the text, and selects within the new text', () => {
    let runs = 0;
    fc.assert(
      fc.property(anyText, fc.nat(), fc.nat(), fc.constantFrom(...MARKS), (text, x, y, m) => {
        runs++;
        const from = x % (text.length + 1);
        const to = y % (text.length + 1);
        const edit = markEdit(text, from, to, m);
        expect(0).toBeLessThanOrEqual(edit.from);
        expect(edit.from).toBeLessThanOrEqual(edit.to);
        expect(edit.to).toBeLessThanOrEqual(text.length);
        const after = applyEdit(text, edit);
        expect(after).toBe(text.slice(0, edit.from) + edit.insert + text.slice(edit.to));
        expect(0).toBeLessThanOrEqual(edit.selection.from);
        expect(edit.selection.from).toBeLessThanOrEqual(edit.selection.to);
        expect(edit.selection.to).toBeLessThanOrEqual(after.length);
      }),
      { numRuns: 2000 },
    );
    expect(runs).toBeGreaterThanOrEqual(2000);
  });
});

describe('bold, italic and code', () => {
  /** Text of one line, with no spaces at its ends and no `*` or backtick. */
  const plain = fc
    .string({ unit: anyChar, minLength: 1, maxLength: 20 })
    .map((s) => s.replace(/[\n*`]/g, '').trim())
    .filter((s) => s.length > 0);

  it('keep the selected text as it is, selected, and applied again give back the text', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        anyText.map((s) => s.replace(/[*`]+$/, '')),
        plain,
        anyText.map((s) => s.replace(/^[*`]+/, '')),
        fc.constantFrom(...TOGGLED),
        fc.boolean(),
        (before, selected, after, m, backwards) => {
          runs++;
          const text = before + selected + after;
          const [from, to] = [before.length, before.length + selected.length];
          const first = backwards ? mark(text, to, from, m) : mark(text, from, to, m);
          expect(first.selected).toBe(selected);
          expect(first.after.startsWith(before)).toBe(true);
          expect(first.after.endsWith(after)).toBe(true);
          const second = again(first, m);
          expect(second.after).toBe(text);
          expect(second.selection).toEqual({ from, to });
        },
      ),
      { numRuns: 1500 },
    );
    expect(runs).toBeGreaterThanOrEqual(1500);
  });
});

describe('heading, quote, bullets and numbers', () => {
  /** A non-blank line not already starting with any line mark (nor a digit or a space). */
  const line = fc
    .string({ unit: anyChar, minLength: 1, maxLength: 15 })
    .map((s) => s.replace(/[\r\n]/g, ''))
    .filter((s) => s.length > 0 && !/^[#>\-*+\d\s]/.test(s));

  it('applied twice to whole lines without the mark give back the text', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.constantFrom(...LINE_MARKS), (lines, m) => {
        runs++;
        const text = lines.join('\n');
        const first = mark(text, 0, text.length, m);
        expect(first.after.split('\n')).toHaveLength(lines.length);
        expect(first.selected).toBe(first.after);
        expect(again(first, m).after).toBe(text);
      }),
      { numRuns: 1000 },
    );
    expect(runs).toBeGreaterThanOrEqual(1000);
  });

  it('applied twice to some of the lines, selected from anywhere in the first to anywhere in the last, give back the text', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        anyText.map((s) => (s === '' ? s : `${s}\n`)),
        fc.array(line, { minLength: 1, maxLength: 6 }),
        anyText.map((s) => (s === '' ? s : `\n${s}`)),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...LINE_MARKS),
        (before, lines, after, x, y, m) => {
          runs++;
          const middle = lines.join('\n');
          const text = before + middle + after;
          const from = before.length + (x % lines[0]!.length);
          const lastStart = before.length + middle.length - lines.at(-1)!.length;
          const to = Math.max(from, lastStart + 1 + (y % lines.at(-1)!.length));
          const first = mark(text, from, to, m);
          expect(first.after.startsWith(before)).toBe(true);
          expect(first.after.endsWith(after)).toBe(true);
          expect(again(first, m).after).toBe(text);
        },
      ),
      { numRuns: 1000 },
    );
    expect(runs).toBeGreaterThanOrEqual(1000);
  });
});
