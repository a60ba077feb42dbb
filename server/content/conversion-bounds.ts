/** Deepest container / bracket nesting accepted by the pre-scan (see prescan.ts). */
export const MAX_NESTING = 100;

/**
 * Per-paragraph bounds of the pre-scan (paragraph-scan.ts explains the micromark costs they
 * bound). Each keeps the parser's per-paragraph work at (constant) x (paragraph length), and is
 * far above ordinary prose: over the 39 corpus articles and the CommonMark/GFM spec examples the
 * largest paragraph counts are well under a tenth of these (see tests/unit/content/prescan.test.ts).
 * - 250 emphasis delimiter runs: each closer walks back over every earlier opener and compares
 *   markers with `sliceSerialize` (about 1 µs a step), so a paragraph of `*a_ ` costs
 *   (closers x openers); measured in-thread, 250 -> 500 runs of `*a_ ` grows 2.55x and
 *   125 -> 250 runs 2.1x, so 250 keeps every convertible doubling under 2.5 (the corpus'
 *   paragraphs have fewer than 100);
 * - 100 open `[` at once (as for nesting);
 * - 2000 `[ ]` labels or links (each failed one costs a splice of the paragraph's events; the
 *   cost stays linear-looking below ~10,000, so 2000 leaves a 5x margin);
 * - link resource attempts (`](`) may scan 10x the paragraph length plus 10,000 characters, and
 *   so may the look-backs of `]` (each back to the previous `[`): an ordinary link scans only its
 *   own destination and title, an ordinary `]` only its own label, together less than 1x.
 */
export const PARAGRAPH_LIMITS = {
  delimiterRuns: 250,
  openBrackets: MAX_NESTING,
  labels: 2000,
  resourceScanFactor: 10,
  resourceScanSlack: 10_000,
} as const;

/**
 * Largest accepted document (UTF-8 bytes). The REST layer's JSON body cap (8 MiB) is larger so
 * that a document of this size still fits once JSON-escaped. With the budget below that is at
 * most ~22 s of one worker for the worst input; an ordinary 1 MB article converts in a few
 * seconds.
 */
export const MAX_MARKDOWN_BYTES = 2 * 1024 * 1024;

/**
 * A CPU budget that grows linearly with size, about 1 s plus 10 s per MB: ample for real
 * articles, while an input built to be slow cannot hold a worker for long.
 */
export function timeBudgetMs(markdownBytes: number): number {
  return 1000 + Math.ceil((10_000 * markdownBytes) / 1_000_000);
}

/**
 * Source characters of parsed blocks each conversion worker keeps for the next conversions of the
 * same account (block-parse.ts): at about 13 bytes of tree per character, some 7 MB per worker,
 * a few hundred typical articles. A block longer than the second figure is not kept: it would
 * push out many others, and the edit that reuses it is rare.
 */
export const BLOCK_CACHE_CHARS = 512 * 1024;
export const BLOCK_CACHE_MAX_BLOCK_CHARS = 64 * 1024;

/**
 * Documents of at least this many characters (the block cache's size, above) are parsed in parts
 * by several workers at once (parallel-parse.ts), and without the block cache: a document larger
 * than the whole cache pushes its own first blocks out while it is filed, so it would find none
 * of them next time.
 */
export const PARTS_FROM_CHARS = 512 * 1024;

/**
 * Characters per part of such a document. A part is one task of a helper worker, and another
 * account's document waits for at most one part before it gets that worker (fair-queue.ts spare
 * jobs): at 4 to 6 µs of CPU per character (GFM tables, nested lists), under 0.1 s. Each part
 * also costs a task's dispatch and a parse's fixed cost, well under a millisecond.
 */
export const PART_CHARS = 16 * 1024;
