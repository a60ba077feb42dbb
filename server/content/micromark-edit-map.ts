/**
 * micromark's `EditMap.consume` (micromark-util-edit-map 1.0.0), rebuilt from the first edit on
 * instead of from the start of the event list. Same result for every input; linear in what
 * follows the first edit, where the original is linear in the whole list.
 *
 * Why: micromark's document tokenizer applies an edit map to the document's events every time a
 * list item closes the flow of the one before it (micromark/lib/initialize/document.js
 * `documentContinue`, `_closeFlow`), with its edits at the very end of the list. The original
 * copies all the events so far each time, so a document with n list items costs n x (its events):
 * 200 KB of nested lists spent half their conversion there and 400 KB took 22 s, the document's
 * size mattering as much as the lists'. With the rebuild starting at the first edit the same
 * document converts in linear time.
 *
 * The class is patched where it is defined, so micromark's own imports get it; if the package
 * ever changes shape (no `map` list or `index` map, or no `consume`), the original stays.
 */
import { EditMap } from 'micromark-util-edit-map';

type Change = [at: number, remove: number, add: unknown[]];
interface EditMapState {
  map: Change[];
  index: Map<number, Change>;
  consume(events: unknown[]): void;
}

const prototype = EditMap.prototype as unknown as EditMapState;
const original = prototype.consume;

function consumeFromFirstEdit(this: EditMapState, events: unknown[]): void {
  this.map.sort((a, b) => a[0] - b[0]);
  if (this.map.length === 0) return;
  const first = this.map[0]![0];
  // Edits past the end grow the list with holes in the original: keep its exact behaviour there.
  if (first > events.length) return original.call(this, events);
  // As the original, from the last edit back: the events after each edit, then what it adds;
  // the events before the first edit are never touched.
  const rest = events.slice(first);
  events.length = first;
  const pieces: unknown[][] = [];
  for (let i = this.map.length - 1; i >= 0; i--) {
    const [at, remove, add] = this.map[i]!;
    pieces.push(rest.slice(at - first + remove), add);
    rest.length = at - first;
  }
  for (let i = pieces.length - 1; i >= 0; i--) for (const event of pieces[i]!) events.push(event);
  this.map.length = 0;
  this.index.clear();
}

const probe = new EditMap() as unknown as Partial<EditMapState>;
if (typeof original === 'function' && Array.isArray(probe.map) && probe.index instanceof Map) {
  prototype.consume = consumeFromFirstEdit;
}
