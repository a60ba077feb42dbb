/**
 * The article fields the console editor edits, as text. These, and nothing else, are what the
 * editor keeps in the browser's session storage between reloads (never a token or a session id).
 */
export interface EditorFields {
  title: string;
  subtitle: string;
  slug: string;
  tags: string;
  markdown: string;
}

/**
 * The editor's fields with the article's cover: `cover_asset_id` is the id of one of the
 * account's stored images, '' for none. Save sends it as PATCH's `cover_asset_id` ('' as null)
 * when it changed. It is not among the texts kept in session storage: a reload keeps the saved cover.
 */
export interface ArticleFields extends EditorFields {
  cover_asset_id: string;
}

/** The editor's tag field ("a, b, c") as tag names: the save and the live preview read it alike. */
export function tagNamesFromField(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * A browser sends a textarea's line breaks as \r\n; articles written through the API have \n.
 * Saves store \n, and the editor compares texts this way, so line endings alone never count
 * as a change.
 */
export function normalizeLineEndings(text: string): string {
  // Most texts have no \r at all: finding none is a plain scan, not a regular expression's.
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * Markdown longer than this is not put into the editor page: the page loads it afterwards as
 * plain text (/console/articles/{id}/markdown), so rendering the page never blocks the server's
 * event loop for long (bench/editor-page.ts). Shorter texts come with the page, ready to type in.
 */
export const DEFERRED_MARKDOWN_CHARS = 200_000;

/**
 * The longest Markdown the live preview converts: far above any real article, low enough that a
 * preview cannot tie up a conversion worker. The editor does not post a longer text at all
 * (reading a 2 MB form would hold the server's event loop on every pause in typing); its saved
 * version is still previewed once saved.
 */
export const LIVE_PREVIEW_MAX_CHARS = 1_000_000;
