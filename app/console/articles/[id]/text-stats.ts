/**
 * The editor's word count and reading time. Words are what a reader reads: runs of letters and
 * digits (with inner apostrophes and hyphens: "don't", "well-known" are one), counted in the text
 * without its HTML tags (islands' markup) and without the addresses of links and images (their
 * text and alternative text still count). Reading time at 230 words a minute, the usual figure for
 * adults reading on a screen, rounded up; nothing to read reads in 0 min.
 */
const TAG = /<[^>\n]{0,2000}>/g;
const ADDRESS = /\]\([^)\s]{0,2000}(?:\s+"[^"\n]{0,500}")?\)/g;
const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}]|['’-](?=[\p{L}\p{N}]))*/gu;

export const WORDS_PER_MINUTE = 230;

export function textStats(markdown: string): { words: number; minutes: number } {
  const text = markdown.replace(TAG, ' ').replace(ADDRESS, '] ');
  let words = 0;
  for (const _ of text.matchAll(WORD)) words++;
  return { words, minutes: Math.ceil(words / WORDS_PER_MINUTE) };
}
