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
 * The class is patched where it is defined, so micromark's own imports get it. If the package
 * ever changes shape (no `map` list or `index` map, or no `consume`) the patch is not installed,
 * and if micromark resolves another copy of the package its parser never reaches the patch:
 * either way conversions would be quadratic again without a word. So nothing relies on it
 * silently: `assertEditMapPatch` (called once per conversion worker, worker.ts) parses a short
 * list through the pipeline's parser and throws, naming the package's version, unless the patch
 * is installed and that parse went through it; tests/unit/content/micromark-edit-map.test.ts
 * fails the same way.
 *
 * No upstream report is linked because none is known: this repository records none (this file,
 * the README, docs/), and a search of micromark's public issues, made when this note was
 * written, found none about `EditMap.consume` copying the whole event list (the nearest,
 * micromark/micromark#171, made subtokenize's splices linear: a different path). Whoever files
 * one should link it here; once micromark's own `consume` is linear, this file and its import in
 * pipeline.ts can go.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { EditMap } from 'micromark-util-edit-map';

const PACKAGE = 'micromark-util-edit-map';
/** The version whose `consume` this rebuilds (and whose shape the probe below checks). */
const WRITTEN_FOR = '1.0.0';

type Change = [at: number, remove: number, add: unknown[]];
interface EditMapState {
  map: Change[];
  index: Map<number, Change>;
  consume(events: unknown[]): void;
}

const prototype = EditMap.prototype as unknown as EditMapState;
const original = prototype.consume;

/** Calls of the rebuilt `consume`, so `assertEditMapPatch` can see a parse go through it. */
let consumed = 0;

function consumeFromFirstEdit(this: EditMapState, events: unknown[]): void {
  consumed++;
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

/** Whether `EditMap.prototype.consume` is the rebuilt one. */
export function editMapPatchInstalled(): boolean {
  return prototype.consume === consumeFromFirstEdit;
}

/** The installed package's version, read from its package.json (only for the failure's message). */
function installedVersion(): string {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve(PACKAGE));
    for (let up = 0; up < 4; up++, dir = path.dirname(dir)) {
      try {
        const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
        if (manifest.name === PACKAGE) return String(manifest.version);
      } catch {
        // no package.json here: one folder up
      }
    }
  } catch {
    // not resolvable from here (a bundle): the message says so
  }
  return 'of unknown version';
}

/**
 * Throws unless the patch is installed and `parse` (the pipeline's Markdown parse) goes through
 * it: a two-item list makes micromark's document tokenizer consume an edit map.
 */
export function assertEditMapPatch(parse: (markdown: string) => unknown): void {
  const which = () =>
    `${PACKAGE} ${installedVersion()} (server/content/micromark-edit-map.ts was written for ${WRITTEN_FOR})`;
  if (!editMapPatchInstalled())
    throw new Error(
      `${which()}: EditMap no longer has the shape the linear consume needs (a \`map\` list, an \`index\` map, \`consume\`), so the patch is not installed and list-heavy documents would convert in quadratic time. Port the patch to this version or pin ${PACKAGE} to ${WRITTEN_FOR}.`,
    );
  const before = consumed;
  parse('- a\n- b\n');
  if (consumed === before)
    throw new Error(
      `${which()}: the patch is installed, but micromark's parser did not go through it (does micromark resolve another copy of ${PACKAGE}? \`npm ls ${PACKAGE}\`), so list-heavy documents would convert in quadratic time.`,
    );
}
