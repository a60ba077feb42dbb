/**
 * An article's saved versions as the console's history lists and compares them
 * (server/data/posts/revisions.ts reads them; server/services/posts/revisions.ts says what they are for).
 */

/** One entry of the history. */
export interface RevisionSummary {
  id: string;
  /** ISO 8601. */
  savedAt: string;
  tokenName: string | null;
  title: string;
  markdownLength: number;
  /** ISO 8601: this save restored the version saved then; null for any other save. */
  restoredFrom: string | null;
  /** The console editor's autosave made this version (the last of a run of autosaves). */
  autosaved: boolean;
}

/** One version whole: what a restore saves again and a comparison shows. */
export interface Revision {
  id: string;
  /** ISO 8601. */
  savedAt: string;
  title: string;
  subtitle: string | null;
  slug: string;
  tags: { slug: string; name: string }[];
  markdown: string;
  html: string;
}
