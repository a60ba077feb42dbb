/**
 * A large document through the worker pool (server/content/pool.ts, parallel-parse.ts): its parse
 * is shared between its worker and the pool's other worker, in parts, and the conversion is the
 * one the whole parse gives, byte for byte; a document under the threshold, or a pool with the
 * sharing off, parses whole. `renderMeasured` reports the parts and the CPU time of every thread.
 *
 * The pools of the shapes lower the threshold (`partsFromChars`) to a few parts' size: documents
 * of 110 to 570 KB take the same path as 2 MB ones, cut into the same 16 KB parts, for a fraction
 * of the CPU (GFM tables convert at about 5 µs a character). The service's own threshold is checked
 * with prose, the shape that converts fastest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContentPool, contentPoolSettings } from '../../../server/content/pool';
import { renderArticleSync } from '../../../server/content/pipeline';
import { PART_CHARS, PARTS_FROM_CHARS } from '../../../server/content/conversion-bounds';
import { buildTestContentWorker, testContentPool, type TestContentWorker } from '../../support/content-pool';
import { DOCUMENT_SHAPES } from './shapes';

/** The threshold of the pools that convert the shapes: four parts. */
const LOWERED = 4 * PART_CHARS;

let worker: TestContentWorker;
let workerPath: string;
let pool: ContentPool;
let lowered: ContentPool;
let onePerDocument: ContentPool;
beforeAll(() => {
  worker = buildTestContentWorker();
  workerPath = worker.path;
  pool = testContentPool({ workerPath });
  lowered = new ContentPool({ ...contentPoolSettings(workerPath), partsFromChars: LOWERED });
  // At least two workers, whatever the machine: one for the document, one to help it.
  onePerDocument = new ContentPool({
    ...contentPoolSettings(workerPath),
    parseInParts: 'off',
    partsFromChars: LOWERED,
  });
});

afterAll(async () => {
  await Promise.all([pool.close(), lowered.close(), onePerDocument.close()]);
  worker.remove();
});

describe('a large document through the pool', () => {
  it.each(['GFM tables', 'nested lists', 'prose'])(
    'the %s shape is parsed in parts, with the output of the whole parse',
    async (shape) => {
      const markdown = DOCUMENT_SHAPES[shape]!(LOWERED + 100_000);
      const input = { markdown, title: 'Large' };
      const measured = await lowered.renderMeasured(input, 'account-a');
      expect(measured.parts).toBeGreaterThan(1);
      expect(measured.partsByHelpers).toBeLessThan(measured.parts);
      expect(measured.output).toEqual(renderArticleSync(input));
    },
    120_000,
  );

  it("is parsed in parts from the service's threshold on, whole below it", async () => {
    const at = DOCUMENT_SHAPES.prose!(PARTS_FROM_CHARS + 20_000).slice(0, PARTS_FROM_CHARS);
    const below = at.slice(0, -1);
    expect(at).toHaveLength(PARTS_FROM_CHARS);
    expect((await pool.renderMeasured({ markdown: at, title: 'T' }, 'account-a')).parts).toBeGreaterThan(1);
    expect((await pool.renderMeasured({ markdown: below, title: 'T' }, 'account-a')).parts).toBe(1);
  }, 120_000);

  it('is parsed whole below the threshold, or by a pool with the sharing off', async () => {
    const large = DOCUMENT_SHAPES['GFM tables']!(LOWERED + 50_000);
    const small = DOCUMENT_SHAPES['GFM tables']!(LOWERED - 50_000);
    const whole = await onePerDocument.renderMeasured({ markdown: large, title: 'T' }, 'account-a');
    expect(whole.parts).toBe(1);
    expect((await lowered.renderMeasured({ markdown: small, title: 'T' }, 'account-a')).parts).toBe(1);
    const shared = await lowered.renderMeasured({ markdown: large, title: 'T' }, 'account-a');
    expect(shared.parts).toBeGreaterThan(1);
    expect(shared.output).toEqual(whole.output);
    // The CPU time of every thread counts, helpers' included: about the same work either way.
    expect(shared.cpuMs).toBeGreaterThan(0.5 * whole.cpuMs);
  }, 120_000);

  it("leaves another account's document the next free worker", async () => {
    // One lane at the normal priority: on a machine busy with other work, a lowered worker's part
    // could take longer than the small document's budget allows it to wait.
    const unlowered = new ContentPool({ ...contentPoolSettings(workerPath), nice: 0, partsFromChars: LOWERED });
    try {
      // The other worker parses parts once it is up (a cold one first loads the pipeline).
      const warm = DOCUMENT_SHAPES['nested lists']!(LOWERED + 50_000);
      let byHelpers = 0;
      for (let i = 0; i < 3 && byHelpers === 0; i++) {
        byHelpers = (await unlowered.renderMeasured({ markdown: warm, title: 'T' }, 'account-a')).partsByHelpers;
      }
      expect(byHelpers).toBeGreaterThan(0);
      const large = DOCUMENT_SHAPES['nested lists']!(LOWERED + 500_000);
      let largeDone = false;
      const measuredLarge = unlowered.renderMeasured({ markdown: large, title: 'T' }, 'account-a').finally(() => {
        largeDone = true;
      });
      // Once the large document's parts are under way, a small one of another account converts
      // long before the large one is done.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const small = await unlowered.render({ markdown: '# Small\n\nA paragraph.', title: 'S' }, 'account-b');
      expect(small.html).toBe('<h1>Small</h1>\n<p>A paragraph.</p>');
      expect(largeDone).toBe(false);
      expect((await measuredLarge).parts).toBeGreaterThan(1);
    } finally {
      await unlowered.close();
    }
  }, 120_000);
});
