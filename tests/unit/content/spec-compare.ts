/**
 * Spec-corpus comparison: the reference HTML of a CommonMark/GFM example is passed through our
 * own pipeline (it is valid input: raw HTML), which applies exactly the contract's differences (one H1,
 * header row inside tbody, plain <ol>, absolute http(s) links only, servable images only,
 * sanitized raw HTML). Our rendering of the example's Markdown must then give the same HTML,
 * compared after collapsing whitespace between tags.
 */
import { ContentRejectedError, renderArticleSync } from '../../../server/content';

const outcome = (markdown: string): string => {
  try {
    return renderArticleSync({ markdown, title: 'T' })
      .html.replace(/&#10;/g, '\n')
      .replace(/>\s+</g, '><')
      .replace(/\s+/g, ' ')
      .trim();
  } catch (error) {
    if (error instanceof ContentRejectedError) return `rejected: ${error.message}`;
    throw error;
  }
};

export function agreesWithReference(markdown: string, referenceHtml: string): boolean {
  return outcome(markdown) === outcome(referenceHtml);
}
