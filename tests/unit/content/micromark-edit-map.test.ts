/**
 * The content pipeline replaces micromark's `EditMap.consume` with one that rebuilds the event
 * list from the first edit on (server/content/micromark-edit-map.ts). It must apply any set of
 * edits exactly as micromark's own does: checked against the edit semantics written out below,
 * on random lists and edits, through the class micromark itself imports.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EditMap } from 'micromark-util-edit-map';
import { assertEditMapPatch, editMapPatchInstalled } from '../../../server/content/micromark-edit-map';
import { parseMarkdownSync } from '../../../server/content/pipeline';

/** micromark's event type, as the edit map takes it. */
type Event = Parameters<EditMap['add']>[2][number];

type Edit = { at: number; remove: number; add: string[]; before: boolean };

/**
 * micromark's meaning of a set of edits: edits at one index are merged (their removals add up,
 * `addBefore` goes in front), then, by index, the events before the first edit, and after each
 * edit its additions and the events from its end to the next edit.
 */
function reference(events: string[], edits: Edit[]): string[] {
  const merged = new Map<number, { remove: number; add: string[] }>();
  for (const { at, remove, add, before } of edits) {
    if (remove === 0 && add.length === 0) continue;
    const known = merged.get(at);
    if (!known) merged.set(at, { remove, add: [...add] });
    else {
      known.remove += remove;
      known.add = before ? [...add, ...known.add] : [...known.add, ...add];
    }
  }
  const sorted = [...merged.entries()].sort((a, b) => a[0] - b[0]);
  if (sorted.length === 0) return events;
  const out = events.slice(0, sorted[0]![0]);
  sorted.forEach(([at, { remove, add }], i) => {
    const next = i + 1 < sorted.length ? sorted[i + 1]![0] : events.length;
    out.push(...add, ...events.slice(at + remove, Math.max(at + remove, next)));
  });
  return out;
}

const listAndEdits = fc.integer({ min: 0, max: 60 }).chain((length) =>
  fc.tuple(
    fc.constant(Array.from({ length }, (_, i) => `e${i}`)),
    fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: length }),
        remove: fc.integer({ min: 0, max: 4 }),
        add: fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 3 }),
        before: fc.boolean(),
      }),
      { maxLength: 8 },
    ),
  ),
);

describe("micromark's EditMap.consume, rebuilt from the first edit", () => {
  // Without these, the checks below would pass on micromark's own consume just as well.
  it("is installed, and the pipeline's parser goes through it", () => {
    expect(editMapPatchInstalled()).toBe(true);
    expect(() => assertEditMapPatch(parseMarkdownSync)).not.toThrow();
  });

  it('refuses, naming the package and its version, a parser that does not go through it', () => {
    expect(() => assertEditMapPatch(() => null)).toThrow(
      /^micromark-util-edit-map 1\.0\.0 \(server\/content\/micromark-edit-map\.ts was written for 1\.0\.0\): the patch is installed, but micromark's parser did not go through it/,
    );
  });

  it('applies random edits exactly as the edit semantics say', () => {
    let checked = 0;
    fc.assert(
      fc.property(listAndEdits, ([events, edits]) => {
        const map = new EditMap();
        for (const { at, remove, add, before } of edits) {
          const items = [...add] as unknown as Event[];
          if (before) map.addBefore(at, remove, items);
          else map.add(at, remove, items);
        }
        const actual = [...events] as unknown as Event[];
        map.consume(actual);
        expect(actual as unknown as string[]).toEqual(reference(events, edits));
        checked++;
      }),
      { numRuns: 2000 },
    );
    expect(checked).toBe(2000);
  });

  it('is reusable after consuming, like the original', () => {
    const map = new EditMap();
    const events = ['a', 'b', 'c'] as unknown as Event[];
    map.add(3, 0, ['d'] as unknown as Event[]);
    map.consume(events);
    map.add(0, 1, [] as Event[]);
    map.consume(events);
    expect(events as unknown as string[]).toEqual(['b', 'c', 'd']);
  });
});
