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
