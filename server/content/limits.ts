/** Deepest container / bracket nesting accepted by the pre-scan (see prescan.ts). */
export const MAX_NESTING = 100;

/**
 * Largest accepted document (UTF-8 bytes), matching the 2 MiB JSON body cap of the REST layer
 * (NOTES (a)). With the budget below that is at most ~22 s of one worker for the worst input;
 * an ordinary 1 MB article converts in a few seconds.
 */
export const MAX_MARKDOWN_BYTES = 2 * 1024 * 1024;

/** Issue 3: a CPU budget that grows linearly with size, about 1 s plus 10 s per MB. */
export function timeBudgetMs(markdownBytes: number): number {
  return 1000 + Math.ceil((10_000 * markdownBytes) / 1_000_000);
}
