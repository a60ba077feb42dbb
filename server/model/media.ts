/**
 * The media aggregate's records: a stored file as the console lists it, and what serving one
 * needs. server/data/media-rows.ts reads them; the storage rules are server/services/media/'s.
 */

/** A stored file as the console lists it. */
export interface MediaRecord {
  id: string;
  kind: string;
  mimeType: string;
  byteSize: number;
  width: number;
  height: number;
  sourceUrl: string | null;
  /** The name the file had on the maintainer's computer, for files added in the console. */
  fileName: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** What serving a file needs. */
export interface ServableMedia {
  storageKey: string;
  mimeType: string;
  byteSize: number;
  sha256: string;
}
