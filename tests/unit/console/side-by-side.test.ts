import { describe, expect, it } from 'vitest';
import { READER_STYLESHEET } from '@/server/reader-pages/article-document';

/**
 * The side-by-side frame (server/console/side-by-side.ts) lays two readers' screens out as two
 * columns of one document, each exactly one reader's width. That is the layout a reader of that
 * width gets only while the readers' stylesheet sizes nothing by the viewport: a media query or a
 * viewport unit would answer to both columns and the gap together, not to one reader's screen.
 */
describe("the readers' stylesheet, laid out in columns", () => {
  it('has no media query and no viewport unit', () => {
    expect(READER_STYLESHEET).not.toMatch(/@media|@container/i);
    expect(READER_STYLESHEET).not.toMatch(/\d(?:vw|vh|vmin|vmax|dvw|dvh|svw|svh|lvw|lvh)\b/i);
  });
});
