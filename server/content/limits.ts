/** Deepest container / bracket nesting accepted by the pre-scan (see prescan.ts). */
export const MAX_NESTING = 100;

/**
 * Largest accepted document. The REST layer caps JSON bodies well below this; the bound here
 * keeps the time budget (below) meaningful even when the pipeline is called directly.
 */
export const MAX_MARKDOWN_BYTES = 4 * 1024 * 1024;

/** Issue 3: a CPU budget that grows linearly with size, about 1 s plus 10 s per MB. */
export function timeBudgetMs(markdownBytes: number): number {
  return 1000 + Math.ceil((10_000 * markdownBytes) / 1_000_000);
}
