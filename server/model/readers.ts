/** One UTC day of an article's reader counts (opens, reads, full reads), for the editor's chart. */
export interface ReaderDay {
  /** `YYYY-MM-DD`. */
  day: string;
  opens: number;
  reads: number;
  completes: number;
}
